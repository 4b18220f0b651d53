/**
 * npm run openapi: writes docs/openapi.json, every function's own document (the one it serves at
 * `/functions/v1/<name>/openapi.json`) combined into one. Each handler is built and asked for its
 * document in-process; a document needs no database, so the connection pool is never opened.
 */
import { createAuthenticator } from '../supabase/functions/_shared/auth.ts';
import { createDatabase } from '../supabase/functions/_shared/db.ts';
import { API_VERSION, type Dependencies } from '../supabase/functions/_shared/http.ts';
import type { OpenAPIHono } from '@hono/zod-openapi';

type Handler = (req: Request) => Promise<Response>;

export type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

export async function functionDocuments(): Promise<OpenApiDocument[]> {
  const deps: Dependencies = {
    // postgres.js connects on the first query, which a document never makes.
    db: createDatabase('postgres://openapi@127.0.0.1:9/unused', { max: 1 }),
    auth: createAuthenticator({ jwtSecret: 'unused' }),
    allowedOrigins: '*',
  };
  const functionsDir = new URL('../supabase/functions/', import.meta.url);
  const names: string[] = [];
  for await (const entry of Deno.readDir(functionsDir)) {
    if (entry.isDirectory && !entry.name.startsWith('_')) names.push(entry.name);
  }
  const documents = [];
  for (const name of names.sort()) {
    const module: { createHandler: (deps: Dependencies) => Handler } = await import(
      new URL(`${name}/index.ts`, functionsDir).href
    );
    const response = await module.createHandler(deps)(new Request(`http://local/${name}/openapi.json`));
    documents.push(await response.json());
  }
  return documents;
}

/** Several functions' documents as one, for `docs/openapi.json` and the local viewer. */
export function combineDocuments(documents: OpenApiDocument[], version: string): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Store back office',
      description: 'Every edge function of the back office. Each function also serves its own document at ' +
        '`/functions/v1/<name>/openapi.json`.',
      version,
    },
    servers: documents[0]?.servers ?? [],
    paths: Object.assign({}, ...documents.map((document) => document.paths)),
    components: {
      schemas: Object.assign({}, ...documents.map((document) => document.components?.schemas)),
      securitySchemes: documents[0]?.components?.securitySchemes ?? {},
    },
  };
}

if (import.meta.main) {
  const combined = combineDocuments(await functionDocuments(), API_VERSION);
  const file = new URL('../docs/openapi.json', import.meta.url);
  await Deno.writeTextFile(file, `${JSON.stringify(combined, null, 2)}\n`);
  console.log(`Wrote docs/openapi.json: ${Object.keys(combined.paths ?? {}).length} paths`);
  Deno.exit(0);
}
