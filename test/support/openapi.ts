/**
 * The contract check of the shared test client: every answer a test receives from a function must be one
 * its OpenAPI document describes, for that method, path and status. The documents are fetched from the
 * functions themselves (`/functions/v1/<name>/openapi.json`), as a front end would.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dereference } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const FUNCTIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../supabase/functions');

/** Every deployable function: a folder under supabase/functions with an index.ts, as the CLI sees them. */
export const FUNCTION_NAMES = readdirSync(FUNCTIONS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('_'))
  .filter((entry) => readdirSync(path.join(FUNCTIONS_DIR, entry.name)).includes('index.ts'))
  .map((entry) => entry.name)
  .sort();

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema?: object } } }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

const ajv = new Ajv2020({ strict: false });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
const compiled = new WeakMap<object, ValidateFunction>();
const documents = new Map<string, Promise<Document>>();

function documentOf(apiUrl: string, name: string): Promise<Document> {
  let document = documents.get(name);
  if (!document) {
    document = fetch(`${apiUrl}/functions/v1/${name}/openapi.json`)
      .then((res) => res.json())
      .then((raw) => dereference(raw) as Promise<Document>);
    documents.set(name, document);
  }
  return document;
}

function operationFor(document: Document, method: string, pathname: string) {
  const segments = pathname.split('/').filter(Boolean);
  const candidates = Object.entries(document.paths)
    .map(([template, operations]) => ({ template, parts: template.split('/').filter(Boolean), operations }))
    .filter(({ parts }) =>
      parts.length === segments.length &&
      parts.every((part, i) => part.startsWith('{') || decodeURIComponent(segments[i]) === part)
    );
  // As in the router, a fixed segment wins over a parameter: only the most specific paths answer, and
  // a method they lack is a 405 the document need not describe.
  const parameters = (parts: string[]) => parts.filter((part) => part.startsWith('{')).length;
  const fewest = Math.min(...candidates.map(({ parts }) => parameters(parts)));
  for (const candidate of candidates.filter(({ parts }) => parameters(parts) === fewest)) {
    const operation = candidate.operations[method.toLowerCase()];
    if (operation) return { template: candidate.template, operation };
  }
  return undefined;
}

/**
 * Why an answer breaks the document, or undefined when it keeps it (or is not a function's answer to a
 * route the function has: unknown paths and methods are the router's 404 and 405).
 */
export async function contractViolation(
  apiUrl: string,
  method: string,
  url: URL,
  status: number,
  body: unknown,
): Promise<string | undefined> {
  const match = /^\/(?:functions\/v1|api\/v1|api)\/([^/]+)(\/.*)?$/.exec(url.pathname);
  if (!match || !FUNCTION_NAMES.includes(match[1]) || method === 'OPTIONS') return undefined;
  const document = await documentOf(apiUrl, match[1]);
  let found;
  try {
    found = operationFor(document, method, `/${match[1]}${match[2] ?? ''}`);
  } catch {
    return undefined; // a path that is not valid percent-encoding matches no route
  }
  if (!found) return undefined;
  const response = found.operation.responses[String(status)];
  const where = `${method} ${found.template} → ${status}`;
  if (!response) return `${where}: the document does not list status ${status}`;
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return undefined;
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(body)) return undefined;
  return `${where}: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n${JSON.stringify(body).slice(0, 600)}`;
}
