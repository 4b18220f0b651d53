/**
 * The request pipeline every function shares, on Hono: routing with 404/405, API versions, CORS, and per
 * route the project's middleware in this order: the body read, one database bound around the rest, the
 * caller, a log of each answer, the rate limit, the input checked with zod (the area's 400), a concurrency
 * gate, the handler. Every failure is the area's envelope, and a 500 leaks nothing. A function declares its
 * routes with @hono/zod-openapi's `createRoute` and hands them here with their handlers (`on`).
 */
import { OpenAPIHono, type RouteConfig, type RouteHandler } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler, TypedResponse } from 'hono';
import { getPath } from 'hono/utils/url';
import { z } from 'zod';
import type { Access, Authenticator } from './auth.ts';
import { parseBody, readBytes } from './body.ts';
import type { Caller } from './caller.ts';
import { encoded } from './compression.ts';
import { type Database, DatabaseError, DatabaseStalled, translateDatabaseError } from './db.ts';
import { ApiError, type Area } from './errors.ts';
import { concurrencyLimit, enforceRateLimit, type RateLimits } from './limits.ts';
import { register, registerComponents, SERVERS } from './openapi.ts';
import { checkText, type ProblemMapper, queryObject, validate } from './validation.ts';

/** The version every route answers in unless it is asked for another its function has. */
export const API_VERSION = '1.0.0';
/** The versions a route may be declared in, each asked for by `Accept: ...;version=X` (requestedVersion). */
export type ApiVersion = '1.0' | '2.0';
const ALLOWED_HEADERS = 'authorization, x-client-info, apikey, content-type, accept, idempotency-key';

export interface Dependencies {
  db: Database;
  auth: Authenticator;
  /** Origins allowed by CORS; `*` allows any. */
  allowedOrigins: string[] | '*';
  /** How many `x-forwarded-for` entries, from the right, the deployment's own proxies wrote (limits.ts); 1 if unset. */
  trustedProxyHops?: number;
}

/** What the middleware hands on: the verified caller, the version answered and the body's bytes. */
export interface AppEnv {
  Variables: { caller: Caller; answered: string; body: () => Uint8Array | undefined };
}

/** A handler's context: `c.req.valid('json' | 'query' | 'param')` typed by its route's schemas. */
export type Ctx<R extends RouteConfig> = Parameters<RouteHandler<R, AppEnv>>[0];

/**
 * An answer before it is sent: its status, its body (bytes a handler's answer already is, or a value to
 * send as JSON, as an error's envelope) and its own headers (Retry-After, Allow, Content-Language).
 */
interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * The success envelope around JSON text from the database, sent as it is: a large answer built as JSON text
 * in SQL is not parsed into objects only to be serialized again. Typed as the route's 200 answer, which the
 * SQL that writes it is held to by the tests that validate every answer against the document.
 */
export function successWithJsonText(c: Context, data: string) {
  return c.body(`{"success":true,"data":${data}}`, 200) as unknown as TypedResponse<never, 200, 'json'>;
}

/** The success envelope, `{ success: true, data }`, as the route's answer (`status` 200 unless said). */
export function ok<D, S extends 200 | 201 = 200>(c: Context, data: D, status?: S) {
  return c.json({ success: true as const, data }, status ?? 200 as S);
}

/** A page of a list as seeds 01 and 02 answer it: the rows, how many, and where the page stands. */
export function pageAnswer<T>({ rows, totalCount }: { rows: T[]; totalCount: number }, page: number, perPage: number) {
  return {
    success: true as const,
    data: rows,
    count: rows.length,
    pagination: { page, per_page: perPage, total_count: totalCount, total_pages: Math.ceil(totalCount / perPage) },
  };
}

/** How a route is served beyond what its `createRoute` documents. */
export interface RouteOptions {
  /** Who may call: signed-in users and the service key unless a route is declared `public`. */
  access?: Access;
  /** Turns a refused input, or a body that is not JSON, into the area's own error (business health's). */
  problem?: ProblemMapper;
  /** Checked after authentication, before anything else the route does (limits.ts). */
  rateLimit?: RateLimits;
  /** At most this many of the route's handlers run at once per instance; the rest wait their turn. */
  concurrency?: number;
  /** Records each answer's status and duration, the health report's `system` figures. */
  log?: boolean;
  /**
   * The API version this route answers (1.0 unless said). A function declares a later version of a route as
   * a route of its own on the same method and path; a request picks one with its Accept header.
   */
  version?: ApiVersion;
}

export interface Endpoint {
  route: RouteConfig;
  // deno-lint-ignore no-explicit-any
  handle: (c: Ctx<any>) => Promise<Response> | Response;
  options: RouteOptions;
}

/**
 * A route and its handler. The compiler checks both ways: the handler takes what the route's schemas
 * produce, and answers `c.json(body, status)` with a body and status its `responses` declare.
 */
export function on<R extends RouteConfig>(route: R, handle: RouteHandler<R, AppEnv>, options: RouteOptions = {}) {
  return { route, handle, options } as unknown as Endpoint;
}

export interface FunctionSpec {
  /** The function's folder name: its URL segment in `/functions/v1/<name>`. */
  name: string;
  /** For its OpenAPI document, served at `/functions/v1/<name>/openapi.json`. */
  title: string;
  description: string;
  area: Area;
  endpoints: Endpoint[];
}

type Middleware = MiddlewareHandler<AppEnv>;

export function serveFunction(spec: FunctionSpec, deps: Dependencies): (req: Request) => Promise<Response> {
  const { name, area } = spec;
  // Hono routes the path below the function's own segment, wherever the platform mounts it.
  const app = new OpenAPIHono<AppEnv>({ getPath: (req) => functionPath(req, name) });
  const endpoints = [...spec.endpoints, documentEndpoint(spec, app)];
  const operations = Map.groupBy(endpoints, (e) => `${e.route.method} ${e.route.path}`);
  const paths = [...Map.groupBy(endpoints, (e) => e.route.path)]
    .map(([path, served]) => ({ path, segments: split(path), methods: [...new Set(served.map(methodOf))] }))
    // A fixed segment wins over a parameter: `/stats` is the stats resource for every method, so `DELETE
    // /stats` is a 405 with `Allow: GET`, not a `DELETE /{id}` with an invalid id.
    .sort((a, b) => fixed(b.segments) - fixed(a.segments));
  const offered = [...new Set(endpoints.map(versionOf))].sort();

  // Throws the 404 or 405 of a path no route of the method answers, by the most specific of the paths it
  // matches; first the 406 of a version no route has, or the 400 of a path that is not percent-encoded UTF-8.
  const refuse = (req: Request): never => {
    requestedVersion(req, offered, area);
    const segments = relativeSegments(req.url, name, area);
    const found = segments && paths.find((p) => match(p.segments, segments));
    if (!found) throw new ApiError(404, area.codes.notFound, `No route for ${req.method} ${new URL(req.url).pathname}`);
    const allow = found.methods.join(', ');
    const message = `Method ${req.method} is not allowed here; use ${allow}`;
    throw new ApiError(405, area.codes.methodNotAllowed, message, undefined, { allow });
  };
  const refused = (req: Request) => {
    try {
      return refuse(req);
    } catch (error) {
      return respond(req, deps, errorReply(error, area));
    }
  };
  app.onError((error, c) => respond(c.req.raw, deps, errorReply(error, area), c.var.answered));
  app.notFound((c) => refused(c.req.raw));
  for (const versions of operations.values()) {
    versions.sort((a, b) => versionOf(a).localeCompare(versionOf(b)));
    const operation = { versions: versions.map((e) => ({ route: e.route, version: versionOf(e) })) };
    register(app as never, name, area, { ...operation, access: versions[0].options.access ?? 'user' });
  }
  // Registered most specific path first: Hono runs the first route that matches.
  for (const path of paths) {
    for (const method of path.methods) {
      const versions = operations.get(`${method.toLowerCase()} ${path.path}`)!;
      const chains = new Map(versions.map((e) => [versionOf(e), pipeline(e, spec, deps)]));
      // The paths with more fixed segments this one's parameters could stand for: Hono routes `DELETE
      // /stats` to `DELETE /{id}` when `/stats` has no DELETE, which is a 405 of `/stats`.
      const shadows = paths.filter((other) => fixed(other.segments) > fixed(path.segments) && overlaps(other, path));
      // The route's one Hono handler: no middleware runs for every route, so Hono answers a request with the
      // one handler it finds, the cheapest way it has.
      const dispatch: Middleware = async (c) => {
        const wanted = requestedVersion(c.req.raw, offered, area);
        // A path that is not percent-encoded UTF-8 is refused as such, before any route reads its parameters.
        if (c.req.url.includes('%')) relativeSegments(c.req.url, name, area);
        if (shadows.length && shadows.some((other) => match(other.segments, split(c.req.path)))) refuse(c.req.raw);
        const chain = chains.get(wanted);
        if (!chain) throw unsupportedVersion(wanted, [...chains.keys()], area);
        c.set('answered', `${wanted}.0`);
        await run(chain, c);
      };
      app.on(method, honoPath(path.path), dispatch);
    }
  }
  registerComponents(app as never, area);
  return async (req) => {
    if (req.method === 'OPTIONS') {
      return new Response('ok', { headers: { ...corsHeaders(req, deps.allowedOrigins), 'api-version': API_VERSION } });
    }
    // No route answers HEAD, which Hono would answer as GET.
    if (req.method === 'HEAD') return refused(req);
    return await app.fetch(req);
  };
}

/** The route's middleware, in order, ending in its handler. */
function pipeline(endpoint: Endpoint, { name, area }: FunctionSpec, deps: Dependencies): Middleware[] {
  const { route, handle, options } = endpoint;
  const hasBody = !!route.request?.body;
  const gate = options.concurrency ? concurrencyLimit(options.concurrency) : undefined;
  return [
    // The body arrives before the database bound starts: a slow upload is for the HTTP deadlines to judge
    // (HTTP_REQUEST_TIMEOUT locally, the platform's when deployed), never a stalled database's 503. What
    // reading it threw (too large) is still answered where it always was, after the caller's checks. A route
    // without a body schema never reads one.
    ...(hasBody ? [readBody(area)] : []),
    // One bound from here to the answer, whatever the request waits on: the user's standing, its rate-limit
    // row, a report slot, its transaction.
    (c, next) =>
      deps.db.withinBound(async (answerBy) => {
        c.set('caller', { ...await deps.auth.authenticate(c.req.raw, options.access ?? 'user', area), answerBy });
        await next();
      }),
    ...(options.log ? [logged(deps.db, name)] : []),
    ...(options.rateLimit ? [rateLimited(deps, area, options.rateLimit)] : []),
    validated(route, area, options.problem),
    ...(gate ? [(_c: Context, next: () => Promise<void>) => gate(next)] : []),
    async (c) => answer(c.req.raw, deps, await handle(c as never), c.var.answered),
  ] as Middleware[];
}

/** Reads the body's bytes, handing on what reading them found (body.ts, `readBytes`). */
function readBody(area: Area): Middleware {
  return async (c, next) => {
    c.set('body', await readBytes(c.req.raw, area));
    await next();
  };
}

/** Runs middleware in order, each handing on with `next`; the last one's answer is the response. */
async function run(chain: Middleware[], c: Context<AppEnv>): Promise<void> {
  const step = async (i: number): Promise<void> => {
    const answer = await chain[i](c, () => step(i + 1));
    if (answer) c.res = answer;
  };
  await step(0);
}

function rateLimited(deps: Dependencies, area: Area, limits: RateLimits): Middleware {
  return async (c, next) => {
    await enforceRateLimit(deps.db, area, c.var.caller, c.req.raw.headers, limits, deps.trustedProxyHops);
    await next();
  };
}

/**
 * Each part of the request checked against the route's schema and handed on as `c.req.valid(...)`. In this
 * order, so a malformed path parameter wins over a bad body; a part without a schema is still held to text
 * a column can store.
 */
function validated(route: RouteConfig, area: Area, problem?: ProblemMapper): Middleware {
  const { params, query, body } = route.request ?? {};
  const bodySchema = (body?.content?.['application/json'] as { schema?: unknown } | undefined)?.schema;
  const hasParameters = route.path.includes('{');
  return async (c, next) => {
    const check = (schema: unknown, value: unknown) =>
      schema ? validate(schema as never, value, area, problem) : (checkText(value, area, problem), value);
    c.req.addValidatedData('param', (hasParameters ? check(params, c.req.param()) : {}) as never);
    c.req.addValidatedData('query', check(query, queryObject(new URL(c.req.url).searchParams)) as never);
    if (bodySchema) {
      const sent = parseBody(c.req.raw, c.var.body(), area, !body?.required, problem);
      c.req.addValidatedData('json', check(bodySchema, sent) as never);
    }
    await next();
  };
}

/**
 * Records the status and duration of each answer, or of its failure. The write is not awaited: a failed log
 * write must not fail, nor slow, the request it describes.
 */
function logged(db: Database, name: string): Middleware {
  return async (c, next) => {
    const started = performance.now();
    const record = (status: number) => {
      const duration = Math.round(performance.now() - started);
      db.sql`select private.record_function_request(${name}, ${status}, ${duration})`.catch(() => {});
    };
    try {
      await next();
    } catch (error) {
      record(error instanceof ApiError ? error.status : 500);
      throw error;
    }
    record(c.res.status);
  };
}

/** Every function serves its own document, so it deploys with the function. */
function documentEndpoint(spec: FunctionSpec, app: OpenAPIHono<AppEnv>): Endpoint {
  let document: unknown;
  const route = {
    method: 'get',
    path: '/openapi.json',
    summary: `The OpenAPI 3.1 document of ${spec.name}`,
    responses: {
      200: { description: 'OK', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
    },
  } as const;
  return on(route, (c) => {
    document ??= app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: { title: spec.title, description: spec.description, version: API_VERSION },
      servers: SERVERS,
    });
    return c.json(document as Record<string, unknown>, 200);
  }, { access: 'public' });
}

/** A handler's answer as sent: its status, body and headers, with the version, CORS and compression. */
async function answer(req: Request, deps: Dependencies, res: Response, answered: string): Promise<Response> {
  const headers = Object.fromEntries(res.headers);
  delete headers['content-type'];
  return respond(req, deps, { status: res.status, body: new Uint8Array(await res.arrayBuffer()), headers }, answered);
}

/** The answer: the body as JSON (bytes already are), compressed when worth it, with the version and CORS headers. */
function respond(req: Request, deps: Dependencies, reply: Reply, answered = API_VERSION): Promise<Response> {
  const cors = corsHeaders(req, deps.allowedOrigins);
  const bytes = reply.body instanceof Uint8Array
    ? reply.body as Uint8Array<ArrayBuffer>
    : new TextEncoder().encode(JSON.stringify(reply.body));
  return encoded(req, bytes, {
    status: reply.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'api-version': answered,
      ...cors,
      ...reply.headers,
      ...(cors.vary && reply.headers?.vary ? { vary: `${cors.vary}, ${reply.headers.vary}` } : {}),
    },
  });
}

export function errorReply(error: unknown, area: Area): Reply {
  if (error instanceof DatabaseStalled) error = translateDatabaseError(error, area);
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = error;
  } else if (error instanceof DatabaseError) {
    console.error(`[${area.name}] database error: ${error.message}`);
    apiError = new ApiError(500, area.codes.database, 'A database error occurred');
  } else {
    console.error(`[${area.name}] unexpected error:`, error);
    apiError = new ApiError(500, area.codes.internal, 'An unexpected error occurred');
  }
  return { status: apiError.status, body: area.errorBody(apiError), headers: apiError.headers };
}

/** CORS headers for `req`: the local server's own answers use them too, so one allow-list holds everywhere. */
export function corsHeaders(req: Request, allowed: string[] | '*'): Record<string, string> {
  const origin = req.headers.get('origin');
  const allowOrigin = allowed === '*' ? '*' : origin && allowed.includes(origin) ? origin : undefined;
  return {
    ...(allowOrigin ? { 'access-control-allow-origin': allowOrigin } : {}),
    ...(allowed === '*' ? {} : { vary: 'Origin' }),
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    'access-control-expose-headers': 'api-version, retry-after, allow',
    'access-control-max-age': '86400',
  };
}

/**
 * The version `Accept: application/vnd.api+json;version=X` asks for (`2`, `2.0` and `2.0.0` are one), 1.0 without
 * one; 406 for a version none of the function's routes (`offered`) answers.
 */
function requestedVersion(req: Request, offered: string[], area: Area): ApiVersion {
  const accept = req.headers.get('accept');
  if (!accept) return '1.0';
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((part) => part.trim());
    if (type.toLowerCase() !== 'application/vnd.api+json') continue;
    for (const param of params) {
      const [key, value] = param.split('=').map((part) => part.trim());
      if (key.toLowerCase() !== 'version') continue;
      const asked = value?.replace(/^"|"$/g, '') ?? '';
      const version = /^(\d+)(\.0){0,2}$/.exec(asked) ? `${Number(asked.split('.')[0])}.0` : asked;
      if (!offered.includes(version)) throw unsupportedVersion(value, offered, area);
      return version as ApiVersion;
    }
  }
  return '1.0';
}

function unsupportedVersion(requested: string | undefined, supported: string[], area: Area): ApiError {
  return new ApiError(
    406,
    area.codes.unsupportedVersion,
    `API version ${requested} is not supported; supported: ${supported.join(', ')}`,
    { requested_version: requested, supported_versions: supported },
  );
}

/**
 * The path below the function's own segment. Hosted Supabase hands a function `/<name>/...`; the local
 * server does the same, so a handler never sees `/functions/v1`.
 */
function functionPath(req: Request, name: string): string {
  let path = getPath(req);
  // Empty segments are no segments, as for the 404/405 checks: `/bulk-status//` is `/bulk-status`.
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const at = `${path}/`.indexOf(`/${name}/`);
  return at === -1 ? path : path.slice(at + name.length + 1) || '/';
}

/** The path's segments below the function's own, decoded; 400 for a path that is not percent-encoded UTF-8. */
function relativeSegments(url: string, name: string, area: Area): string[] | undefined {
  let segments: string[];
  try {
    segments = split(new URL(url).pathname);
  } catch {
    // decodeURIComponent's URIError: `%zz`, a cut-off `%E0%A4`, or bytes that are not UTF-8.
    throw new ApiError(400, area.codes.validation, 'The path is not valid percent-encoded UTF-8', {
      field: 'path',
      value: null,
      constraint: 'valid percent-encoding',
      rule: 'percent_encoding',
    });
  }
  const at = segments.indexOf(name);
  return at === -1 ? undefined : segments.slice(at + 1);
}

const split = (path: string) => path.split('/').filter(Boolean).map(decodeURIComponent);
const isParameter = (segment: string) => segment.startsWith('{');
const fixed = (segments: string[]) => segments.filter((segment) => !isParameter(segment)).length;
const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
const methodOf = (e: Endpoint) => e.route.method.toUpperCase();
const versionOf = (e: Endpoint) => e.options.version ?? '1.0';

function match(pattern: string[], segments: string[]): boolean {
  return pattern.length === segments.length && pattern.every((p, i) => isParameter(p) || p === segments[i]);
}

/** Whether a path of fixed segments could be one `general` matches. */
function overlaps(specific: { segments: string[] }, general: { segments: string[] }): boolean {
  return match(general.segments, specific.segments.map((s) => isParameter(s) ? '' : s));
}
