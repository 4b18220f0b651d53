/**
 * The request pipeline every function shares, on Hono as its README shows it: each route served by
 * `app.openapi(route, handler)`, its input checked by the route's zod schemas with refusals shaped by the
 * validation hook, CORS, 405 and language by Hono's own middleware. What the libraries lack is added here,
 * once: the area's envelope for every failure, the versions asked for in `Accept`, the body read before the
 * database bound, the caller, the rate limit, the log of each answer and the gzip of large ones.
 */
import { OpenAPIHono, type RouteConfig, type RouteHandler } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler, TypedResponse } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { parseAccept } from 'hono/utils/accept';
import type { JSONParsed } from 'hono/utils/types';
import { getPath } from 'hono/utils/url';
import { z } from 'zod';
import type { Access, Authenticator } from './auth.ts';
import { type Body, readBytes } from './body.ts';
import type { Caller } from './caller.ts';
import { compressed } from './compression.ts';
import { type Database, DatabaseError, DatabaseStalled, translateDatabaseError } from './db.ts';
import { ApiError, type Area, retryLater } from './errors.ts';
import { detectLanguage, type Language } from './language.ts';
import { clientIp, concurrencyLimit, type RateLimits } from './limits.ts';
import { answers, register, registerComponents, SERVERS } from './openapi.ts';
import { type ProblemMapper, validationError, validationHook } from './validation.ts';

/** The version every route answers in unless it is asked for another its function has. */
export const API_VERSION = '1.0.0';
/** The versions a route may be declared in, each asked for by `Accept: ...;version=X` (requestedVersion). */
export type ApiVersion = '1.0' | '2.0';

export interface Dependencies {
  db: Database;
  auth: Authenticator;
  /** Origins allowed by CORS; `*` allows any. */
  allowedOrigins: string[] | '*';
  /** How many `x-forwarded-for` entries, from the right, the deployment's own proxies wrote (limits.ts); 1 if unset. */
  trustedProxyHops?: number;
}

/** What the middleware hands on: the verified caller, the body's bytes, the route's refusals, the language. */
export interface AppEnv {
  Variables: { caller: Caller; body: Body; problem?: ProblemMapper; language: Language };
}

/** A handler's context: `c.req.valid('json' | 'query' | 'param')` typed by its route's schemas. */
export type Ctx<R extends RouteConfig> = Parameters<RouteHandler<R, AppEnv>>[0];

/**
 * The success envelope, `{ success: true, data }`, as the route's answer (`status` 200 unless said). Its type
 * is spelled out: left to `c.json`, a generic `data` is too deep for the compiler once Hono's middleware
 * modules are loaded.
 */
export function ok<D, S extends 200 | 201 = 200>(c: Context, data: D, status?: S) {
  return c.json({ success: true, data } as never, status ?? 200 as S) as TypedResponse<
    JSONParsed<{ success: true; data: D }>,
    S,
    'json'
  >;
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
  /** The answer has words: Hono's language middleware puts the caller's language in `c.var.language`. */
  words?: boolean;
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
  const offered = [...new Set(spec.endpoints.map(versionOf))].sort();
  // Each version's routes live under the version's own first segment of the path Hono routes, so a request
  // reaches the routes of the version its Accept header asks for (and a version no route has reaches none).
  const app = new OpenAPIHono<AppEnv>({
    getPath: (req) => joined(requestedVersion(req, offered) ?? 'none', functionPath(req, name)),
    defaultHook: validationHook(area),
  });
  const endpoints = [...spec.endpoints, documentEndpoint(spec, app)];
  app.use(answered(offered, cors(corsOptions(deps.allowedOrigins))));
  app.use(methodNotAllowed({
    app,
    onMethodNotAllowed: (c, methods) => {
      const allow = methods.join(', ');
      const message = `Method ${c.req.method} is not allowed here; use ${allow}`;
      return failure(c, new ApiError(405, area.codes.methodNotAllowed, message, undefined, { allow }));
    },
  }));
  app.onError((error, c) => failure(c, error));
  app.notFound((c) => {
    const version = requestedVersion(c.req.raw, offered);
    if (!version) return failure(c, unsupportedVersion(c.req.raw, offered, area));
    return failure(
      c,
      new ApiError(404, area.codes.notFound, `No route for ${c.req.method} ${new URL(c.req.url).pathname}`),
    );
  });
  const failure = (c: Context<AppEnv>, error: unknown) => {
    const { status, body, headers } = errorReply(error, area, c.var.problem, c.req.header('content-type'));
    return c.json(body, status as never, headers);
  };

  // Hono runs the first route registered that matches: `/stats` before `/{id}`, so `GET /stats` is the stats.
  const mostFixedFirst = endpoints.toSorted((a, b) => fixedSegments(b) - fixedSegments(a));
  for (const versions of Map.groupBy(mostFixedFirst, (e) => `${e.route.method} ${e.route.path}`).values()) {
    versions.sort((a, b) => versionOf(a).localeCompare(versionOf(b)));
    const access = versions[0].options.access ?? 'user';
    register(app as never, { name, area, access }, versions.map((e) => ({ route: e.route, version: versionOf(e) })));
    for (const version of offered) {
      const endpoint = versions.find((e) => versionOf(e) === version);
      if (endpoint) serve(app, endpoint, version, spec, deps);
      else {
        // The route exists, not in the version asked for: 406 with the versions it has.
        const has = versions.map(versionOf);
        app.on(versions[0].route.method, joined(version, honoPath(versions[0].route.path)), (c) => {
          throw unsupportedVersion(c.req.raw, has, area);
        });
      }
    }
  }
  registerComponents(app as never, area);
  return async (req) => await app.fetch(req);
}

/** One version of a route: its middleware, the checks of its schemas, its handler behind its gate. */
function serve(app: OpenAPIHono<AppEnv>, endpoint: Endpoint, version: string, spec: FunctionSpec, deps: Dependencies) {
  const { route, handle, options } = endpoint;
  const { name, area } = spec;
  const body = route.request?.body;
  const gate = options.concurrency ? concurrencyLimit(options.concurrency) : undefined;
  const middleware: Middleware[] = [
    ...(options.words ? [detectLanguage as Middleware] : []),
    // The body arrives before the database bound starts: a slow upload is for the HTTP deadlines to judge
    // (HTTP_REQUEST_TIMEOUT locally, the platform's when deployed), never a stalled database's 503. Its 413
    // is answered after the caller's checks.
    ...(body ? [readBody(area)] : []),
    // One bound from here to the answer, whatever the request waits on: the user's standing, its rate-limit
    // row, a report slot, its transaction.
    (c, next) =>
      deps.db.withinBound(async (answerBy) => {
        // The route's own refusals, for its schemas' hook and the failures outside them (a body not JSON).
        if (options.problem) c.set('problem', options.problem);
        c.set('caller', { ...await deps.auth.authenticate(c.req.raw, options.access ?? 'user', area), answerBy });
        await next();
      }),
    ...(body ? [handBodyOn] : []),
    ...(options.log ? [logged(deps.db, name)] : []),
    ...(options.rateLimit ? [rateLimited(deps, area, options.rateLimit)] : []),
  ];
  app.openapi(
    {
      ...route,
      path: joined(version, route.path),
      hide: true,
      middleware,
      // An optional body left out is checked as `{}`, so its schema's defaults apply (zod-openapi would hand
      // the handler `{}` unchecked); the document still says it is optional.
      ...(body ? { request: { ...route.request, body: { ...body, required: true } } } : {}),
    } as RouteConfig,
    (gate ? (c: Ctx<RouteConfig>) => gate(async () => await handle(c)) : handle) as never,
  );
}

/** The body's bytes, read whole before the database bound (body.ts), as `c.var.body`. */
const readBody = (area: Area): Middleware => async (c, next) => {
  c.set('body', await readBytes(c.req.raw, area));
  await next();
};

/** The bytes read before the bound, or their 413 now that the caller is known, handed to the route's checks. */
const handBodyOn: Middleware = async (c, next) => {
  c.req.raw = new Request(c.req.raw, { body: c.var.body() ?? new Uint8Array() });
  await next();
};

/**
 * What every answer gets once it is made: the version answered, in `api-version`, a large body gzipped when
 * the caller takes it, and Hono's CORS headers. A preflight is Hono's CORS alone.
 */
function answered(offered: string[], cors: MiddlewareHandler): Middleware {
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') return await cors(c, next);
    await next();
    const version = c.req.path.split('/')[1];
    c.res.headers.set('api-version', offered.includes(version) ? `${version}.0` : API_VERSION);
    const res = await compressed(c.req.raw, c.res);
    // Hono's Context copies an answer assigned over another, body and headers, into a third: cleared first,
    // the answer is set as it is. CORS runs on it last for the same reason: run first, it makes an empty
    // response whose headers every answer is then copied over (docs/performance.md measures the cost).
    c.res = undefined;
    c.res = res;
    await cors(c, async () => {});
  };
}

/**
 * Counts each request against its caller's window; past the limit, a 429 with `Retry-After`. Every
 * request counts, invalid ones too: a flood of malformed requests costs the database as much as any other.
 */
function rateLimited(deps: Dependencies, area: Area, limits: RateLimits): Middleware {
  return async (c, next) => {
    const { caller } = c.var;
    // Users by account, anonymous callers by client IP, the service key not at all.
    if (caller.kind !== 'service') {
      const bucket = caller.kind === 'user'
        ? { key: `user:${caller.userId}`, limit: limits.user }
        : { key: `ip:${clientIp(c.req.raw.headers, deps.trustedProxyHops)}`, limit: limits.anonymous };
      const [outcome] = await deps.db.bounded(
        deps.db.sql<{ allowed: boolean; retry_after: number }[]>`
          select * from private.hit_rate_limit(${bucket.key}, ${bucket.limit})`,
        caller.answerBy,
      ).catch((error) => {
        throw translateDatabaseError(error, area);
      });
      if (!outcome.allowed) {
        const message = `Rate limit exceeded: ${bucket.limit} requests per minute`;
        throw retryLater(429, 'RATE_LIMIT_EXCEEDED', message, outcome.retry_after, {
          limit: bucket.limit,
          period: '60s',
        });
      }
    }
    await next();
  };
}

/**
 * Records the status and duration of each answer, its failures too (Hono answers them before this resumes).
 * The write is not awaited: a failed log write must not fail, nor slow, the request it describes.
 */
function logged(db: Database, name: string): Middleware {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const duration = Math.round(performance.now() - started);
    db.sql`select private.record_function_request(${name}, ${c.res.status}, ${duration})`.catch(() => {});
  };
}

/** Every function serves its own document, so it deploys with the function. */
function documentEndpoint(spec: FunctionSpec, app: OpenAPIHono<AppEnv>): Endpoint {
  let document: unknown;
  const route = {
    method: 'get',
    path: '/openapi.json',
    summary: `The OpenAPI 3.1 document of ${spec.name}`,
    responses: answers(z.record(z.string(), z.unknown())),
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

/** The answer to a failure: the area's envelope, and a 500 that leaks nothing. */
export function errorReply(error: unknown, area: Area, problem?: ProblemMapper, contentType?: string) {
  if (error instanceof DatabaseStalled) error = translateDatabaseError(error, area);
  if (error instanceof HTTPException && (error.status === 415 || error.status === 400)) {
    error = unreadableBody(error.status, area, problem, contentType);
  }
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

/** zod-openapi's refusal of a body that is not JSON (415) or not well formed (400), in the area's words. */
function unreadableBody(status: number, area: Area, problem?: ProblemMapper, contentType?: string) {
  const [message, refused] = status === 415
    ? [
      'Request body must be JSON (Content-Type: application/json)',
      { field: 'content-type', value: contentType ?? null, constraint: 'application/json', rule: 'json_content_type' },
    ]
    : ['Request body is not valid JSON', { field: 'body', value: null, constraint: 'valid JSON', rule: 'json' }];
  const plain = validationError(area, refused);
  return problem?.(refused) ?? new ApiError(status, plain.code, message, plain.details);
}

/** Hono's CORS for our allow-list: the local server's own answers use it too, so one list holds everywhere. */
export function corsOptions(allowed: string[] | '*') {
  return {
    origin: allowed,
    allowHeaders: ['authorization', 'x-client-info', 'apikey', 'content-type', 'accept', 'idempotency-key'],
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    exposeHeaders: ['api-version', 'retry-after', 'allow'],
    maxAge: 86400,
  };
}

/**
 * The version `Accept: application/vnd.api+json;version=X` asks for (`2`, `2.0` and `2.0.0` are one), 1.0 without
 * one; undefined for a version none of the function's routes (`offered`) answers.
 */
function requestedVersion(req: Request, offered: string[]): string | undefined {
  const asked = askedVersion(req);
  if (asked === undefined) return '1.0';
  const version = /^(\d+)(\.0){0,2}$/.exec(asked) ? `${Number(asked.split('.')[0])}.0` : asked;
  return offered.includes(version) ? version : undefined;
}

function askedVersion(req: Request): string | undefined {
  for (const range of parseAccept(req.headers.get('accept') ?? '')) {
    if (range.type.toLowerCase() !== 'application/vnd.api+json') continue;
    // A parameter's name is case-insensitive (RFC 9110 5.6.6); parseAccept keeps it as sent.
    const version = Object.entries(range.params).find(([name]) => name.toLowerCase() === 'version');
    if (version) return version[1];
  }
  return undefined;
}

function unsupportedVersion(req: Request, supported: string[], area: Area): ApiError {
  const requested = askedVersion(req);
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
  // Empty segments are no segments: `/bulk-status//` is `/bulk-status`.
  const path = getPath(req).replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
  const at = `${path}/`.indexOf(`/${name}/`);
  return at === -1 ? path : path.slice(at + name.length + 1) || '/';
}

const joined = (version: string, path: string) => `/${version}${path === '/' ? '' : path}`;
const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
const versionOf = (e: Endpoint) => e.options.version ?? '1.0';
const fixedSegments = (e: Endpoint) => e.route.path.split('/').filter((s) => s && !s.startsWith('{')).length;
