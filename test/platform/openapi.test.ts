/**
 * The API's contract: each function serves an OpenAPI 3.1 document generated from its route table; the
 * documents are valid, name every route the router answers, and docs/openapi.json is their current
 * combination. (That every answer in the suite keeps the document is checked by the shared test client.)
 */
import { readFile } from 'node:fs/promises';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../supabase/functions/_shared/http.ts';
import { combineDocuments, type OpenApiDocument } from '../../scripts/openapi.ts';
import { apiUrl } from '../support/client.ts';
import { FUNCTION_NAMES } from '../support/openapi.ts';

const SAMPLE_PARAMETER = '00000000-0000-4000-8000-000000000001';

async function served(name: string): Promise<OpenApiDocument> {
  const res = await fetch(`${apiUrl}/functions/v1/${name}/openapi.json`);
  expect(res.status).toBe(200);
  return res.json();
}

describe('the OpenAPI documents', () => {
  it.each(FUNCTION_NAMES)('%s serves a valid OpenAPI 3.1 document', async (name) => {
    const document = await served(name);
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.each(FUNCTION_NAMES)('%s documents every method the router answers on each of its paths', async (name) => {
    const document = await served(name);
    const templates = Object.entries(document.paths).map(([template, operations]) => ({
      segments: template.split('/'),
      methods: Object.keys(operations),
    }));
    for (const template of Object.keys(document.paths)) {
      const path = template.replace(/\{\w+\}/g, SAMPLE_PARAMETER);
      // Hono's Allow names the methods of every path this one matches: `/stats` is also a `/{id}`.
      const matching = templates.filter(({ segments }) =>
        segments.length === template.split('/').length &&
        segments.every((segment, i) => segment.startsWith('{') || segment === path.split('/')[i])
      );
      // No route answers PROPFIND, so the router's 405 lists every method it has for the path.
      const probe = await fetch(`${apiUrl}/functions/v1${path}`, { method: 'PROPFIND' });
      expect(probe.status, `PROPFIND ${path}`).toBe(405);
      // Hono answers HEAD wherever GET is answered, as HTTP has it; a document lists GET alone.
      const allowed = probe.headers.get('allow')!.split(',').map((method) => method.trim().toLowerCase())
        .filter((method) => method !== 'head').sort();
      expect(allowed, template).toEqual([...new Set(matching.flatMap(({ methods }) => methods))].sort());
    }
  });

  it('docs/openapi.json is every function document combined, as npm run openapi writes it', async () => {
    const combined = combineDocuments(await Promise.all(FUNCTION_NAMES.map(served)), API_VERSION);
    const checkedIn = JSON.parse(await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(checkedIn, 'run `npm run openapi` and commit docs/openapi.json').toEqual(combined);
    const result = await validate(structuredClone(checkedIn));
    expect(result.valid, JSON.stringify(result.errors)).toBe(true);
  });

  it('console/src/api/openapi.gen.ts, checked in so a fresh clone type-checks, is docs/openapi.json’s types as npm run build writes them', async () => {
    const { GENERATED_TYPES, generatedTypes } = await import('../../console/build.mjs');
    expect(await readFile(GENERATED_TYPES, 'utf8'), 'run `npm run build` and commit the file').toBe(await generatedTypes());
  });

  it('are rendered for people by the local server at /functions/v1/docs (Swagger UI over the combined document)', async () => {
    const page = await fetch(`${apiUrl}/functions/v1/docs`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('/functions/v1/docs/openapi.json');
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      expect(html).toContain(`/functions/v1/docs/swagger-ui-dist/${asset}`);
      const res = await fetch(`${apiUrl}/functions/v1/docs/swagger-ui-dist/${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
    const combined = await (await fetch(`${apiUrl}/functions/v1/docs/openapi.json`)).json();
    const checkedIn = JSON.parse(await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(combined).toEqual(checkedIn);
  });
});
