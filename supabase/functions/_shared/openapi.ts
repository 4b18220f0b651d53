/**
 * The function's OpenAPI 3.1 document, generated from the very route table and zod schemas that serve
 * it: parameters and bodies from the schemas each route checks (their input side), successes from the
 * schema each route declares for its answer, errors from the area's envelope. Never written by hand, so it
 * cannot drift from what the function does; the tests validate every answer they receive against it.
 */
import { z } from 'zod';
import type { Area } from './errors.ts';

type JsonSchema = Record<string, unknown>;

/** What a route says about itself for the document. */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** The whole success body. */
  response?: z.ZodType;
  /** The success status; 200 unless given. */
  status?: number;
  /** Failures this route adds to those every route may answer (400, 401, 406, 409, 500, 503; 413 with a body). */
  errors?: number[];
  /** An example request body. */
  example?: unknown;
}

export interface DocumentedRoute extends RouteDoc {
  version?: string;
  method: string;
  path: string;
  access: 'public' | 'user';
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

export interface DocumentedFunction {
  name: string;
  title: string;
  description: string;
  area: Area;
  routes: DocumentedRoute[];
}

const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'The request is malformed or a value breaks a rule of its shape',
  401: 'No valid credentials',
  403: 'The caller may not do this',
  404: 'Nothing with that id',
  405: 'The path exists, not with this method',
  406: 'API-Version not supported',
  409: 'Conflicts with the current state, or another request holds the same data (LOCK_TIMEOUT, see Retry-After)',
  413: 'Body larger than 1 MiB',
  422: 'Well formed, but refused by a rule of the domain',
  429: 'Rate limit exceeded (see Retry-After)',
  500: 'A bug; the body leaks nothing',
  503: 'The database is unavailable (see Retry-After)',
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  return rest;
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    schema: property,
  }));
}

function errorStatuses(route: DocumentedRoute): number[] {
  // 401 on public routes too: a token that is sent must be valid. 409 LOCK_TIMEOUT: any transaction may wait
  // on a lock past the lock timeout.
  const statuses = new Set([400, 401, 406, 409, 500, 503, ...(route.errors ?? [])]);
  if (route.body) statuses.add(413);
  return [...statuses].sort((a, b) => a - b);
}

const json = (schemaOrRef: JsonSchema) => ({ 'application/json': { schema: schemaOrRef } });

/** The OpenAPI 3.1 document of one function; paths are relative to `/functions/v1`. */
export function openApiDocument(fn: DocumentedFunction, version: string) {
  const errorRef = { $ref: `#/components/schemas/${componentName(fn.area)}` };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const versions of byOperation(fn.routes)) {
    const route = versions[versions.length - 1];
    const path = `/${fn.name}${route.path === '/' ? '' : route.path.replace(/:(\w+)/g, '{$1}')}`;
    const status = String(route.status ?? 200);
    // One operation per method and path: a route declared in several versions documents each version's body
    // and answer as alternatives, the latest's example and words.
    const either = (schemas: JsonSchema[]) => schemas.length === 1 ? schemas[0] : { anyOf: schemas };
    const body = versions.some((v) => v.body)
      ? either(versions.filter((v) => v.body).map((v) => jsonSchema(v.body!, 'input')))
      : undefined;
    const operation: Record<string, unknown> = {
      operationId: operationId(fn.name, route),
      summary: route.summary,
      ...(route.description || versions.length > 1
        ? { description: [route.description, versionNote(versions)].filter(Boolean).join('\n\n') }
        : {}),
      tags: [fn.name],
      security: route.access === 'user' ? [{ bearer: [] }] : [{}, { bearer: [] }, { apikey: [] }],
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
      ...(body
        ? {
          requestBody: {
            required: versions.some((v) => v.body && !v.body.safeParse(undefined).success),
            content: {
              'application/json': {
                schema: body,
                ...(route.example === undefined ? {} : { example: route.example }),
              },
            },
          },
        }
        : {}),
      responses: {
        [status]: {
          description: REASONS[Number(status)] ?? 'Success',
          content: json(either(versions.map((v) => v.response ? jsonSchema(v.response, 'output') : {}))),
        },
        ...Object.fromEntries(
          errorStatuses(route).map((code) => [String(code), { description: REASONS[code], content: json(errorRef) }]),
        ),
      },
    };
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: fn.title, description: fn.description, version },
    servers: [{ url: '/functions/v1', description: 'The project: https://<project-ref>.supabase.co/functions/v1' }],
    paths,
    components: {
      schemas: { [componentName(fn.area)]: jsonSchema(fn.area.errorSchema, 'output') },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "A signed-in user's access token, or the project's service-role key",
        },
        apikey: { type: 'apiKey', in: 'header', name: 'apikey', description: "The project's anon key" },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;

/** The routes grouped by method and path, each group's versions oldest first (1.0 is undeclared). */
function byOperation(routes: DocumentedRoute[]): DocumentedRoute[][] {
  const groups = new Map<string, DocumentedRoute[]>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    groups.set(key, [...(groups.get(key) ?? []), route]);
  }
  return [...groups.values()].map((group) =>
    group.sort((a, b) => (a.version ?? '1.0').localeCompare(b.version ?? '1.0'))
  );
}

function versionNote(versions: DocumentedRoute[]): string {
  const named = versions.map((v) => v.version ?? '1.0');
  return `Versions ${named.join(' and ')}: the body and the answer are those of the version asked for with ` +
    '`Accept: application/vnd.api+json;version=X` (answered in `api-version`); without it, 1.0. ' +
    versions.map((v) => `${v.version ?? '1.0'}: ${v.summary}`).join(' ');
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
      schemas: Object.assign({}, ...documents.map((document) => document.components.schemas)),
      securitySchemes: documents[0]?.components.securitySchemes ?? {},
    },
  } as OpenApiDocument;
}

function componentName(area: Area): string {
  return `${area.name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}Error`;
}

function operationId(name: string, route: DocumentedRoute): string {
  const words = [route.method.toLowerCase(), ...name.split('-'), ...route.path.split(/[/-]/)]
    .filter(Boolean)
    .map((word) => word.startsWith(':') ? `by_${word.slice(1)}` : word);
  return words.map((word, i) => i === 0 ? word : word[0].toUpperCase() + word.slice(1)).join('').replace(/_(\w)/g, (
    _,
    c: string,
  ) => c.toUpperCase());
}
