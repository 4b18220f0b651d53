/**
 * The request pipeline every function shares: CORS, API versioning, routing with 404/405, caller
 * authentication, JSON bodies with the 1 MiB limit, the input each route declares checked with zod, the
 * area's error envelope, and a 500 that leaks nothing; per route, on request, rate limits, a concurrency
 * gate and a log of each answer. A function declares its routes; this turns them into a
 * `(Request) => Promise<Response>`.
 */
import { z } from 'zod';
import type { Access, Authenticator } from './auth.ts';
import type { Caller } from './caller.ts';
import { type Database, DatabaseError, DatabaseStalled, translateDatabaseError } from './db.ts';
import { ApiError, type Area } from './errors.ts';
import { concurrencyLimit, enforceRateLimit, type RateLimits } from './limits.ts';
import { openApiDocument, type RouteDoc } from './openapi.ts';
import { checkText, type FieldProblem, type ProblemMapper, queryObject, validate } from './validation.ts';

/** The version every route answers in unless it is asked for another its function has. */
export const API_VERSION = '1.0.0';
/** The versions a route may be declared in, each asked for by `Accept: ...;version=X` (requestedVersion). */
export const API_VERSIONS = ['1.0', '2.0'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const MAX_BODY_BYTES = 1024 * 1024;
const ALLOWED_HEADERS = 'authorization, x-client-info, apikey, content-type, accept, idempotency-key';

export interface Dependencies {
  db: Database;
  auth: Authenticator;
  /** Origins allowed by CORS; `*` allows any. */
  allowedOrigins: string[] | '*';
  /** How many `x-forwarded-for` entries, from the right, the deployment's own proxies wrote (limits.ts); 1 if unset. */
  trustedProxyHops?: number;
}

/** The zod schemas a route may declare for the parts of a request (Hono's `zValidator` targets). */
export interface Schemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

type Parsed<S, K extends keyof Schemas, Otherwise> = S extends { [P in K]: infer T extends z.ZodType } ? z.output<T>
  : Otherwise;

export interface RequestContext<S extends Schemas = Schemas> {
  req: Request;
  caller: Caller;
  /**
   * The request's parts as the route's schemas parsed them. A part without a schema is left as sent:
   * path parameters and query as strings, and the body not read at all.
   */
  input: {
    params: Parsed<S, 'params', Record<string, string>>;
    query: Parsed<S, 'query', Record<string, string>>;
    body: Parsed<S, 'body', undefined>;
  };
}

export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A body the database has already serialized, sent as it is: a large answer built as JSON text in SQL is
 * not parsed into objects only to be serialized again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** The success envelope around JSON text from the database. */
export function successWithJsonText(data: string): Reply {
  return { body: new JsonText(`{"success":true,"data":${data}}`) };
}

/** A page of a list as seeds 01 and 02 answer it: the rows, how many, and where the page stands. */
export function pageReply<T>(
  { rows, totalCount }: { rows: T[]; totalCount: number },
  page: number,
  perPage: number,
): Reply {
  return {
    body: {
      success: true,
      data: rows,
      count: rows.length,
      pagination: { page, per_page: perPage, total_count: totalCount, total_pages: Math.ceil(totalCount / perPage) },
    },
  };
}

export interface RouteOptions extends RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the function, e.g. `/:type_code/validate`. */
  path: string;
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

/** A route as a function declares it: options, schemas, and a handler taking what the schemas parse. */
export type RouteSpec<S extends Schemas> = RouteOptions & S & {
  handle: (ctx: RequestContext<S>) => Promise<Reply>;
};

export interface Route extends RouteOptions, Schemas {
  access: Access;
  /** Checks the request's parts against the route's schemas and hands back the handler bound to them. */
  parse(request: Received, area: Area): () => Promise<Reply>;
}

interface Received {
  req: Request;
  url: URL;
  caller: Caller;
  params: Record<string, string>;
  /** The body's bytes, read before the request's database bound began (`readBytes`). */
  body: () => Uint8Array | undefined;
}

/** Declares a route; the compiler checks that its handler takes what its schemas produce. */
export function route<S extends Schemas>(spec: RouteSpec<S>): Route {
  // A body schema that accepts `undefined` (optional, or with a default) makes the body optional.
  const bodyOptional = spec.body?.safeParse(undefined).success ?? true;
  return {
    ...spec,
    access: spec.access ?? 'user',
    parse({ req, url, caller, params, body }, area) {
      const check = (schema: z.ZodType, value: unknown) => validate(schema, value, area, spec.problem);
      // A part without a schema reaches the handler as sent, so it is still held to text a column can store.
      const asSent = <T>(value: T) => (checkText(value, area, spec.problem), value);
      const query = queryObject(url.searchParams);
      // In this order: a malformed path parameter wins over a bad body.
      const input = {
        params: spec.params ? check(spec.params, params) : asSent(params),
        query: spec.query ? check(spec.query, query) : asSent(query),
        body: spec.body ? check(spec.body, readBody(req, body(), area, bodyOptional, spec.problem)) : undefined,
      } as RequestContext<S>['input'];
      return () => spec.handle({ req, caller, input });
    },
  };
}

export interface FunctionSpec {
  /** The function's folder name: its URL segment in `/functions/v1/<name>`. */
  name: string;
  /** For its OpenAPI document, served at `/functions/v1/<name>/openapi.json`. */
  title: string;
  description: string;
  area: Area;
  routes: Route[];
}

/** Every function serves its own document, so it deploys with the function. */
function documentRoute(spec: FunctionSpec): Route {
  let document: unknown;
  return route({
    method: 'GET',
    path: '/openapi.json',
    access: 'public',
    summary: `The OpenAPI 3.1 document of ${spec.name}`,
    response: z.record(z.string(), z.unknown()),
    handle: () => {
      document ??= openApiDocument({ ...spec, routes: [...spec.routes, documentRoute(spec)] }, API_VERSION);
      return Promise.resolve({ body: document });
    },
  });
}

interface CompiledRoute extends Route {
  segments: string[];
  gate?: <T>(work: () => Promise<T>) => Promise<T>;
}

export function serveFunction(spec: FunctionSpec, deps: Dependencies): (req: Request) => Promise<Response> {
  const routes: CompiledRoute[] = [...spec.routes, documentRoute(spec)].map((route) => ({
    ...route,
    segments: split(route.path),
    gate: route.concurrency ? concurrencyLimit(route.concurrency) : undefined,
  }));
  const { area } = spec;
  const offered = [...new Set(routes.map((r) => r.version ?? '1.0'))].sort();

  return async (req) => {
    const cors = corsHeaders(req, deps.allowedOrigins);
    // The version answered: the chosen route's, once there is one.
    let answered = API_VERSION;
    const respond = (reply: Reply) =>
      encoded(req, reply.body instanceof JsonText ? reply.body.text : JSON.stringify(reply.body), {
        status: reply.status ?? 200,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'api-version': answered,
          ...cors,
          ...reply.headers,
          ...(cors.vary && reply.headers?.vary ? { vary: `${cors.vary}, ${reply.headers.vary}` } : {}),
        },
      });

    if (req.method === 'OPTIONS') {
      return new Response('ok', { status: 200, headers: { ...cors, 'api-version': API_VERSION } });
    }
    try {
      const wanted = requestedVersion(req, offered, area);
      const url = new URL(req.url);
      const segments = relativeSegments(url.pathname, spec.name, area);
      const candidates = mostSpecific(
        segments ? routes.map((r) => ({ r, params: match(r.segments, segments) })).filter((c) => c.params) : [],
      );
      if (candidates.length === 0) {
        throw new ApiError(404, area.codes.notFound, `No route for ${req.method} ${url.pathname}`);
      }
      const methodMatches = candidates.filter((c) => c.r.method === req.method);
      const found = methodMatches.find((c) => (c.r.version ?? '1.0') === wanted);
      if (methodMatches.length > 0 && !found) {
        throw unsupportedVersion(wanted, methodMatches.map((c) => c.r.version ?? '1.0'), area);
      }
      if (!found) {
        const allow = [...new Set(candidates.map((c) => c.r.method))].join(', ');
        throw new ApiError(
          405,
          area.codes.methodNotAllowed,
          `Method ${req.method} is not allowed here; use ${allow}`,
          undefined,
          {
            allow,
          },
        );
      }
      const route = found.r;
      answered = `${wanted}.0`;
      // The body arrives before the database bound starts: a slow upload is for the HTTP deadlines to judge
      // (HTTP_REQUEST_TIMEOUT locally, the platform's when deployed), never a stalled database's 503. What
      // reading it threw (too large) is still answered where it always was, after the caller's checks.
      const body = route.body ? await readBytes(req, area) : () => undefined;
      // One bound from here to the answer, whatever the request waits on: the user's standing, its rate-limit
      // row, a report slot, its transaction.
      const reply = await deps.db.withinBound(async (answerBy) => {
        const caller: Caller = { ...await deps.auth.authenticate(req, route.access, area), answerBy };
        const run = async () => {
          if (route.rateLimit) {
            await enforceRateLimit(deps.db, area, caller, req.headers, route.rateLimit, deps.trustedProxyHops);
          }
          const handle = route.parse({ req, url, caller, params: found.params!, body }, area);
          return route.gate ? route.gate(handle) : handle();
        };
        return await (route.log ? logged(deps.db, spec.name, run) : run());
      }).catch((error) => {
        throw error instanceof DatabaseStalled ? translateDatabaseError(error, area) : error;
      });
      return respond(reply);
    } catch (error) {
      return respond(errorReply(error, area));
    }
  };
}

/** Bodies at least this large go out compressed when the client accepts it; smaller ones are not worth it. */
export const COMPRESS_MIN_BYTES = 8 * 1024;

/**
 * The response, its body gzipped when it is at least COMPRESS_MIN_BYTES and the request's
 * Accept-Encoding accepts gzip (a day's attribution for 1,000 campaigns: 334 KB, 34 KB gzipped). Such a
 * body's answer depends on Accept-Encoding, so it says `Vary: Accept-Encoding` either way. gzip only:
 * CompressionStream, which Deno and the Edge Runtime both have, offers gzip and deflate, not brotli.
 */
export async function encoded(req: Request, text: string, init: ResponseInit & { headers: Record<string, string> }) {
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength < COMPRESS_MIN_BYTES) return new Response(bytes, init);
  const headers: Record<string, string> = { ...init.headers };
  headers.vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
  if (!acceptsGzip(req.headers.get('accept-encoding'))) return new Response(bytes, { ...init, headers });
  return new Response(await gzip(bytes), { ...init, headers: { ...headers, 'content-encoding': 'gzip' } });
}

/** How many compressed bytes the gzip cache holds at most. */
const GZIP_CACHE_BYTES = 16 * 1024 * 1024;
/** Compressed bodies by their SHA-256, least recently used first. */
const gzipCache = new Map<string, Uint8Array<ArrayBuffer>>();
let gzipCacheBytes = 0;

/**
 * The body gzipped, compressed once per distinct body: the same answer asked again (a day's attribution,
 * a report the database keeps) is looked up by its SHA-256, about a tenth of compressing it (0.3 against
 * 3 ms for 334 KB). Keyed by content, not by request, so it can never answer with another body.
 */
async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const key = Array.from(
    new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)),
    (b) => b.toString(16).padStart(2, '0'),
  )
    .join('');
  const kept = gzipCache.get(key);
  if (kept) {
    gzipCache.delete(key);
    gzipCache.set(key, kept);
    return kept;
  }
  const compressed = new Uint8Array(
    await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer(),
  );
  gzipCache.set(key, compressed);
  gzipCacheBytes += compressed.byteLength;
  for (const [oldest, body] of gzipCache) {
    if (gzipCacheBytes <= GZIP_CACHE_BYTES) break;
    gzipCache.delete(oldest);
    gzipCacheBytes -= body.byteLength;
  }
  return compressed;
}

/** Whether an Accept-Encoding header admits gzip: named, or `*`, with a quality above 0 (RFC 9110 12.5.3). */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  const quality = new Map<string, number>();
  for (const item of header.split(',')) {
    const [coding, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!coding) continue;
    const q = params.find((param) => param.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    quality.set(coding, Number.isFinite(value) ? value : 0);
  }
  const gzip = quality.get('gzip') ?? quality.get('x-gzip') ?? quality.get('*');
  return gzip !== undefined && gzip > 0;
}

/**
 * Runs `work` and records the status and duration of its answer, or of its failure. The write is not
 * awaited: a failed log write must not fail, nor slow, the request it describes.
 */
async function logged(db: Database, name: string, work: () => Promise<Reply>): Promise<Reply> {
  const started = performance.now();
  const record = (status: number) => {
    const duration = Math.round(performance.now() - started);
    db.sql`select private.record_function_request(${name}, ${status}, ${duration})`.catch(() => {});
  };
  try {
    const reply = await work();
    record(reply.status ?? 200);
    return reply;
  } catch (error) {
    record(error instanceof ApiError ? error.status : 500);
    throw error;
  }
}

export function errorReply(error: unknown, area: Area): Reply {
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
function requestedVersion(req: Request, offered: string[], area: Area): string {
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
      return version;
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
function relativeSegments(pathname: string, name: string, area: Area): string[] | undefined {
  let segments: string[];
  try {
    segments = split(pathname);
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

function split(path: string): string[] {
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

/**
 * The routes whose path matches with the most fixed segments: `/stats` is the stats resource for every
 * method, so `DELETE /stats` is a 405 with `Allow: GET`, not a `DELETE /:id` with an invalid id.
 */
function mostSpecific<T extends { r: CompiledRoute }>(candidates: T[]): T[] {
  const fixed = (c: T) => c.r.segments.filter((segment) => !segment.startsWith(':')).length;
  const most = Math.max(...candidates.map(fixed));
  return candidates.filter((c) => fixed(c) === most);
}

function match(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(':')) params[pattern[i].slice(1)] = segments[i];
    else if (pattern[i] !== segments[i]) return undefined;
  }
  return params;
}

/** The JSON body; a request without one is the area's 400 unless the route's body is optional. */
function readBody(
  req: Request,
  bytes: Uint8Array | undefined,
  area: Area,
  optional: boolean,
  mapProblem?: ProblemMapper,
): unknown {
  const value = bytes === undefined ? undefined : parseJson(req, bytes, area, mapProblem);
  if (value === undefined && !optional) {
    throw new ApiError(400, area.codes.validation, 'A JSON body is required', {
      field: 'body',
      value: null,
      constraint: 'required',
      rule: 'required',
    });
  }
  return value;
}

/**
 * The body's bytes (undefined when there are none), handed over as a function that throws the 413 of a body
 * past MAX_BODY_BYTES when called, so that 413 comes after the caller's checks. A body cut off by its
 * connection's end is a 400 at once: nobody is left to answer, and nothing is worth doing for it.
 */
async function readBytes(req: Request, area: Area): Promise<() => Uint8Array | undefined> {
  const tooLarge = () => {
    throw new ApiError(413, area.codes.payloadTooLarge, `Request body exceeds ${MAX_BODY_BYTES} bytes`);
  };
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) return tooLarge;
  if (!req.body) return () => undefined;

  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new ApiError(400, area.codes.validation, 'The request body ended before its length', {
        field: 'body',
        value: null,
        constraint: 'complete',
        rule: 'complete_body',
      });
    });
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return tooLarge;
    }
    // Deno hands each read over as a view of a 64 KiB buffer: kept as is, a body dripped a byte per read
    // would hold 64 KiB per byte until the request ends.
    chunks.push(value.byteLength * 2 < value.buffer.byteLength ? value.slice() : value);
  }
  if (size === 0) return () => undefined;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return () => bytes;
}

function parseJson(req: Request, bytes: Uint8Array, area: Area, mapProblem?: ProblemMapper): unknown {
  const unreadable = (message: string, problem: FieldProblem) =>
    mapProblem?.(problem) ?? new ApiError(400, area.codes.validation, message, { ...problem });
  const contentType = req.headers.get('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(contentType.trim())) {
    throw unreadable('Request body must be JSON (Content-Type: application/json)', {
      field: 'content-type',
      value: contentType || null,
      constraint: 'application/json',
      rule: 'json_content_type',
    });
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw unreadable('Request body is not valid JSON', {
      field: 'body',
      value: null,
      constraint: 'valid JSON',
      rule: 'json',
    });
  }
}
