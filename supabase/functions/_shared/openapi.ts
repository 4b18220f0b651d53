/**
 * The function's OpenAPI 3.1 document, from the very `createRoute` definitions that serve it: each route
 * registered in @hono/zod-openapi's registry and the document its generator writes (`getOpenAPI31Document`).
 * Schemas are turned into JSON Schema by zod itself (`z.toJSONSchema`, draft 2020-12, input side for what is
 * sent and output side for answers), so the document says exactly what zod checks; errors are the area's
 * envelope. Never written by hand, so it cannot drift from what the function does; the tests validate every
 * answer they receive against it.
 */
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import { z } from 'zod';
import type { Area } from './errors.ts';

type JsonSchema = Record<string, unknown>;

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
  415: 'The body is not sent as application/json',
  422: 'Well formed, but refused by a rule of the domain',
  429: 'Rate limit exceeded (see Retry-After)',
  500: 'A bug; the body leaks nothing',
  503: 'The database is unavailable (see Retry-After)',
};

/** A route's JSON body for `createRoute`'s `request.body`, with an example; optional if the schema takes none. */
export function jsonBody<S extends z.ZodType>(schema: S, example?: unknown) {
  return {
    required: !schema.safeParse(undefined).success,
    content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
  };
}

/**
 * `createRoute`'s `responses`: the success (200 unless said) and the failures this route adds to those every
 * route may answer (400, 401, 406, 409, 500, 503; 413 and 415 with a body), each in the area's error envelope.
 */
export function answers<S extends z.ZodType, Status extends number = 200>(
  schema: S,
  { status, errors = [] }: { status?: Status; errors?: number[] } = {},
) {
  const success = { description: REASONS[status ?? 200], content: { 'application/json': { schema } } };
  return {
    [status ?? 200]: success,
    ...Object.fromEntries(errors.map((code) => [code, { description: REASONS[code] }])),
  } as { [K in Status]: typeof success };
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  return rest;
}

function parameters(schema: unknown, where: 'path' | 'query') {
  if (!(schema instanceof z.ZodType)) return [];
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    schema: property,
  }));
}

type Content = { schema: z.ZodType; example?: unknown };
const jsonOf = (content: unknown) => (content as Record<string, Content> | undefined)?.['application/json'];
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/**
 * Registers one operation in the app's registry: its route in each version it answers, oldest first, its
 * schemas as JSON Schema. A route declared in several versions is one operation whose body and answer are
 * the versions' alternatives (`anyOf`), with the latest's example and words.
 */
export function register(
  app: OpenAPIHono<never>,
  { name, area, access }: { name: string; area: Area; access: 'public' | 'user' },
  versions: { route: RouteConfig; version: string }[],
) {
  const routes = versions.map((v) => v.route);
  const route = routes[routes.length - 1];
  const either = (schemas: JsonSchema[]) => schemas.length === 1 ? schemas[0] : { anyOf: schemas };
  const bodies = routes.map((r) => jsonOf(r.request?.body?.content)).filter((c): c is Content => !!c);
  const successes = routes.map((r) => Object.entries(r.responses).find(([code]) => Number(code) < 300)!);
  const status = Number(successes[successes.length - 1][0]);
  const errors = new Set([400, 401, 406, 409, 500, 503, ...(bodies.length ? [413, 415] : [])]);
  for (const code of Object.keys(route.responses).map(Number)) if (code >= 400) errors.add(code);
  const example = bodies[bodies.length - 1]?.example;
  const errorBody = json({ $ref: `#/components/schemas/${componentName(area)}` });
  const answer = (s: unknown) => jsonSchema(jsonOf((s as { content?: unknown }).content)!.schema, 'output');
  const named = versions.map((v) => v.version);
  // The version a body and answer are those of, when there are several.
  const versionNote = `Versions ${named.join(' and ')}: the body and the answer are those of the version ` +
    'asked for with `Accept: application/vnd.api+json;version=X` (answered in `api-version`); without it, ' +
    `1.0. ${routes.map((r, i) => `${named[i]}: ${r.summary}`).join(' ')}`;
  const description = [route.description, routes.length > 1 ? versionNote : undefined].filter(Boolean);
  app.openAPIRegistry.registerPath({
    method: route.method,
    path: `/${name}${route.path === '/' ? '' : route.path}`,
    operationId: operationId(name, route),
    summary: route.summary,
    ...(description.length ? { description: description.join('\n\n') } : {}),
    tags: [name],
    security: access === 'user' ? [{ bearer: [] }] : [{}, { bearer: [] }, { apikey: [] }],
    parameters: [...parameters(route.request?.params, 'path'), ...parameters(route.request?.query, 'query')],
    ...(bodies.length
      ? {
        requestBody: {
          required: routes.some((r) => r.request?.body?.required),
          content: {
            'application/json': {
              schema: either(bodies.map((b) => jsonSchema(b.schema, 'input'))),
              ...(example === undefined ? {} : { example }),
            },
          },
        },
      }
      : {}),
    responses: {
      [status]: {
        description: REASONS[status] ?? 'Success',
        content: json(either(successes.map(([, s]) => answer(s)))),
      },
      ...Object.fromEntries(
        [...errors].sort((a, b) => a - b).map((code) => [code, { description: REASONS[code], content: errorBody }]),
      ),
    },
  } as unknown as RouteConfig);
}

/** The document's shared parts: the area's error envelope and how callers authenticate. */
export function registerComponents(app: OpenAPIHono<never>, area: Area) {
  const registry = app.openAPIRegistry;
  registry.registerComponent('schemas', componentName(area), jsonSchema(area.errorSchema, 'output'));
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "A signed-in user's access token, or the project's service-role key",
  });
  registry.registerComponent('securitySchemes', 'apikey', {
    type: 'apiKey',
    in: 'header',
    name: 'apikey',
    description: "The project's anon key",
  });
}

export const SERVERS = [{
  url: '/functions/v1',
  description: 'The project: https://<project-ref>.supabase.co/functions/v1',
}];

function componentName(area: Area): string {
  return `${area.name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}Error`;
}

function operationId(name: string, route: RouteConfig): string {
  const words = [route.method, ...name.split('-'), ...route.path.split(/[/-]/)]
    .filter(Boolean)
    .map((word) => word.startsWith('{') ? `by_${word.slice(1, -1)}` : word);
  return words.map((word, i) => i === 0 ? word : word[0].toUpperCase() + word.slice(1)).join('')
    .replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
}
