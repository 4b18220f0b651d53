/**
 * The local functions server: one Deno process mounting every function's own handler, the way the
 * Supabase gateway routes `/functions/v1/<name>` to a function. The handlers are the very ones
 * `supabase functions deploy` ships; only the URL prefix is stripped here. CONTRACT §0 also asks for
 * the seeds' `/api/...` and `/api/v1/...` aliases.
 */
// First, so that a run at a chosen moment (`npm run test:at`) moves this process's clock before anything reads it.
import './lib/clock.mjs';
import { Hono } from 'hono';
import { compress } from 'hono/compress';
import { cors } from 'hono/cors';
import { serveStatic } from 'hono/serve-static';
import { swaggerUI } from '@hono/swagger-ui';
import { dependenciesFromEnv } from '../supabase/functions/_shared/deps.ts';
import { API_VERSION, corsOptions, type Dependencies } from '../supabase/functions/_shared/http.ts';
import { combineDocuments, type OpenApiDocument } from './openapi.ts';
import { releaseMemoryAfterCrowds } from './lib/release-memory.ts';
import { unpackFields } from './lib/request-framing.ts';
import { type Front, serveFront, timeoutsFromEnv } from './lib/tcp-front.ts';
import { ANON_KEY, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID, JWT_SECRET, mintToken } from './lib/keys.mjs';

type Handler = (req: Request) => Promise<Response>;

// No proxy stands in front of the local server, so no X-Forwarded-For hop is trusted unless TRUSTED_PROXY_HOPS
// says one does (a deployed function trusts one: Supabase's gateway).
const deps = dependenciesFromEnv({ trustedProxyHops: 0 });
const functionsDir = new URL('../supabase/functions/', import.meta.url);

// Every folder under supabase/functions with an index.ts is a function, as for `supabase functions
// deploy`; each exports `createHandler(deps)`, and all share one connection pool here.
const functions: Record<string, Handler> = {};
for await (const entry of Deno.readDir(functionsDir)) {
  if (!entry.isDirectory || entry.name.startsWith('_')) continue;
  const index = new URL(`${entry.name}/index.ts`, functionsDir);
  if (!(await Deno.stat(index).then((info) => info.isFile, () => false))) continue;
  const module: { createHandler?: (deps: Dependencies) => Handler } = await import(index.href);
  if (typeof module.createHandler !== 'function') {
    throw new Error(`${entry.name}/index.ts does not export createHandler`);
  }
  functions[entry.name] = module.createHandler(deps);
}

const PREFIXES = ['/functions/v1/', '/api/v1/', '/api/'];

// The API reference for people, local only: Swagger UI (@hono/swagger-ui, its assets from swagger-ui-dist in
// node_modules rather than a CDN) over every function's own document, combined. Deployed functions serve their
// documents, not this page.
const DOCS = '/functions/v1/docs';
const SWAGGER_UI = new URL('../node_modules/swagger-ui-dist/', import.meta.url);
const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

async function combinedDocument(): Promise<OpenApiDocument> {
  const documents = await Promise.all(
    Object.entries(functions).sort(([a], [b]) => a.localeCompare(b)).map(async ([name, handler]) =>
      (await handler(new Request(`http://local/${name}/openapi.json`))).json()
    ),
  );
  return combineDocuments(documents, API_VERSION);
}

const page = swaggerUI({
  url: `${DOCS}/openapi.json`,
  baseUrl: DOCS,
  title: 'Store back office API',
  deepLinking: true,
});
const docsPages = new Hono()
  .get(DOCS, page)
  .get(`${DOCS}/`, page)
  .get(`${DOCS}/openapi.json`, async (c) => c.json(await combinedDocument()))
  .get(`${DOCS}/swagger-ui-dist/:asset`, async (c) => {
    const type = DOCS_ASSETS[c.req.param('asset')];
    if (!type) return c.notFound();
    return new Response(await Deno.readFile(new URL(c.req.param('asset'), SWAGGER_UI)), {
      headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' },
    });
  });

async function docs(pathname: string): Promise<Response | undefined> {
  const res = await docsPages.request(pathname);
  return res.status === 404 ? undefined : res;
}

// The store console (console/dist: `npm run build`, or npm start when it is missing or stale), served as the
// static files it is anywhere else, plus what only this local server offers it: a config.json naming this
// server and the local anon key, and a sign-in as the demo admin or customer. That sign-in exists here
// alone (no deployed function has it), and only while this server verifies tokens with the local secret.
const CONSOLE = '/console';
const CONSOLE_DIST = decodeURIComponent(new URL('../console/dist', import.meta.url).pathname);
const SEPARATOR = Deno.build.os === 'windows' ? '\\' : '/';
const LOCAL_SIGN_IN = '/local/sign-in';
const DEMO_USERS = {
  admin: { id: DEMO_ADMIN_ID, email: 'admin@example.com' },
  customer: { id: DEMO_CUSTOMER_ID, email: 'customer@example.com' },
} as const;
const SIGN_IN_HOURS = 8;
const SIGN_IN_MAX_BYTES = 1024;
const localSecret = () => (Deno.env.get('SUPABASE_JWT_SECRET') ?? JWT_SECRET) === JWT_SECRET;
const NOT_BUILT = '<!doctype html><title>Store console</title><p>The console is not built yet: run ' +
  '<code>npm run build</code> (or restart <code>npm start</code>, which builds it when console/dist is missing).</p>';

/**
 * A file of console/dist, or null. Hono's serveStatic has already refused encoded, dotted, backslashed and
 * doubled paths; this also refuses anything that resolves outside dist (a symlink) and anything not a file.
 */
async function distFile(file: string): Promise<ReadableStream<Uint8Array> | null> {
  try {
    const [real, root] = await Promise.all([Deno.realPath(file), Deno.realPath(CONSOLE_DIST)]);
    if (!real.startsWith(root + SEPARATOR) || !(await Deno.stat(real)).isFile) return null;
    return (await Deno.open(real)).readable;
  } catch {
    return null;
  }
}

async function isDistDirectory(file: string): Promise<boolean> {
  return (await Deno.stat(file).catch(() => undefined))?.isDirectory ?? false;
}

/** The store's currency (ISO 4217), configured once: every amount in the console is shown in it. */
const STORE_CURRENCY = /^[A-Z]{3}$/.test(Deno.env.get('STORE_CURRENCY') ?? '')
  ? Deno.env.get('STORE_CURRENCY')!
  : 'TWD';

/** The store console as the static files it is anywhere else, plus this server's config.json. */
const consoleFiles = new Hono()
  .get(CONSOLE, (c) => c.redirect(`${new URL(c.req.url).origin}${CONSOLE}/`, 301))
  .get(`${CONSOLE}/config.json`, (c) => {
    c.header('cache-control', 'no-store');
    return c.json({
      supabaseUrl: new URL(c.req.url).origin,
      anonKey: ANON_KEY,
      localSignIn: localSecret(),
      currency: STORE_CURRENCY,
      // No Realtime server here: the console refreshes the stock on screen itself.
      realtime: false,
    });
  })
  // Gzipped as a static host would send it, so local loads weigh what deployed ones do.
  .use(`${CONSOLE}/*`, compress({ encoding: 'gzip', threshold: 0 }))
  .use(
    `${CONSOLE}/*`,
    serveStatic({
      root: CONSOLE_DIST,
      rewriteRequestPath: (requested) => requested.slice(CONSOLE.length),
      getContent: distFile,
      isDir: isDistDirectory,
      onFound: (file, c) => {
        // Vite names assets by content hash; everything else is read fresh.
        const hashed = file.startsWith(`${CONSOLE_DIST}/assets/`);
        c.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
        c.header('x-content-type-options', 'nosniff');
      },
    }),
  )
  .get(`${CONSOLE}/`, (c) => c.html(NOT_BUILT, 503))
  .notFound((c) => c.text('Not found', 404));

async function consoleFile(req: Request): Promise<Response> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return new Response('Method not allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
  }
  return await consoleFiles.fetch(req);
}

async function localSignIn(req: Request): Promise<Response> {
  if (req.method !== 'POST') {
    return Response.json({ error: 'Use POST' }, { status: 405, headers: { allow: 'POST' } });
  }
  if (!localSecret()) {
    return Response.json({ error: 'Local sign-in is off: this server verifies tokens with another secret.' }, {
      status: 404,
    });
  }
  // Another site's page may POST here without a preflight only as a "simple" request (text/plain, form
  // data): asking for JSON makes it preflight, and its Origin, when a browser sends one, must be this server.
  const origin = req.headers.get('origin');
  if (origin !== null && origin !== new URL(req.url).origin) {
    return Response.json({ error: "The local sign-in is for this server's own console only" }, { status: 403 });
  }
  if (!/^application\/json\b/i.test(req.headers.get('content-type') ?? '')) {
    return Response.json({ error: 'Send the sign-in as application/json' }, { status: 415 });
  }
  // Deno sets aside the declared Content-Length before a byte of the body arrives: a sign-in is a few bytes.
  if (!(Number(req.headers.get('content-length')) <= SIGN_IN_MAX_BYTES)) {
    return Response.json({ error: `Send the sign-in with its Content-Length, at most ${SIGN_IN_MAX_BYTES} bytes` }, {
      status: 413,
    });
  }
  const body = await req.json().catch(() => null);
  const as = body?.as;
  if (as !== 'admin' && as !== 'customer') {
    return Response.json({ error: 'Send {"as": "admin"} or {"as": "customer"}' }, { status: 400 });
  }
  const user = DEMO_USERS[as as keyof typeof DEMO_USERS];
  const token: string = await mintToken({
    role: 'authenticated',
    sub: user.id,
    expiresIn: `${SIGN_IN_HOURS}h`,
    claims: { email: user.email },
  });
  return Response.json({
    access_token: token,
    token_type: 'bearer',
    expires_in: SIGN_IN_HOURS * 3600,
    expires_at: Math.floor(Date.now() / 1000) + SIGN_IN_HOURS * 3600,
    user: { id: user.id, email: user.email, role: as },
  }, { headers: { 'cache-control': 'no-store' } });
}

/**
 * Hosts this server answers, as Vite's `server.allowedHosts`: loopback names (`localhost`, `*.localhost`) and IP
 * addresses always, other names only when ALLOWED_HOSTS lists them (comma-separated; `.example.com` also allows
 * its subdomains; `*` allows any). A web page can point a name it controls at 127.0.0.1 (DNS rebinding) and
 * then read this server as its own origin: refusing names nobody allowed closes that.
 */
const ALLOWED_HOSTS = (Deno.env.get('ALLOWED_HOSTS') ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(
  Boolean,
);

/**
 * A Host header that is a host and nothing else (RFC 9110): a name of letters, digits, `-` and `_` between
 * dots, an IPv4 address or a bracketed IPv6 address, then an optional port. Checked before anything reads
 * the request's URL, which Deno builds from it: a Host holding `/`, `?` or `#` would otherwise choose the
 * path (`evil.example/local/sign-in?.localhost`), and one the URL parser refuses would throw.
 */
const HOST = /^(?:(?<name>[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?)|\[[0-9a-f:.]+\])(?::(?<port>\d{1,5}))?$/i;

function hostWellFormed(host: string | null): host is string {
  const parts = host === null ? null : HOST.exec(host);
  if (!parts) return false;
  const { name, port } = parts.groups!;
  if (port !== undefined && Number(port) > 65_535) return false;
  if (
    name !== undefined && /^[\d.]+$/.test(name) &&
    !/^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(name)
  ) {
    return false;
  }
  return URL.canParse(`http://${host}/`);
}

function hostAllowed(host: string): boolean {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name) || /^\[[0-9a-f:.]+\]$/.test(name)) return true;
  return ALLOWED_HOSTS.some((allowed) =>
    allowed === '*' || allowed === name ||
    (allowed.startsWith('.') && (name.endsWith(allowed) || name === allowed.slice(1)))
  );
}

/**
 * `/api/v2/<function>/...`: a version this API does not have, asked of a function it does have. The function
 * answers it in its own envelope, as it answers the same version asked by the Accept header.
 */
const UNKNOWN_VERSION = /^\/(?:api|functions)\/v(\d+)\/([^/]+)(\/.*)?$/;

function unknownVersion(url: URL, fields: Headers): Response | Promise<Response> | undefined {
  const [, version, name, rest = ''] = UNKNOWN_VERSION.exec(url.pathname) ?? [];
  if (!name || version === '1' || !functions[name]) return undefined;
  url.pathname = `/${name}${rest}`;
  const headers = new Headers(fields);
  headers.set('accept', `application/vnd.api+json;version=${version}`);
  return functions[name](new Request(url, { method: 'GET', headers }));
}

/** A refusal of this server's own, in the envelope its front's refusals share. */
function refused(status: number, code: string, error: string, headers?: HeadersInit): Response {
  return Response.json({ success: false, error, code }, { status, headers });
}

async function route(req: Request): Promise<Response> {
  // A head of more fields than Deno's server takes reaches it with the rest packed into one (the front's doing).
  const headers = unpackFields(req.headers);
  if (!headers) return refused(400, 'INVALID_HEADERS', 'The request headers are malformed');
  const host = headers.get('host');
  if (!hostWellFormed(host)) return refused(400, 'INVALID_HOST', 'The Host header is not a host name');
  if (!hostAllowed(host)) {
    return refused(
      403,
      'HOST_NOT_ALLOWED',
      'This host is not allowed; add it to ALLOWED_HOSTS to serve it (see docs/local-stack.md)',
    );
  }
  const url = requestUrl(req, host);
  const versioned = unknownVersion(url, headers);
  if (versioned) return versioned;
  if (url.pathname === CONSOLE || url.pathname.startsWith(`${CONSOLE}/`)) {
    return consoleFile(forwarded(url, req, headers));
  }
  if (url.pathname === LOCAL_SIGN_IN) return localSignIn(forwarded(url, req, headers));
  if (url.pathname === DOCS || url.pathname.startsWith(`${DOCS}/`)) {
    const page = req.method === 'GET' ? await docs(url.pathname) : undefined;
    if (page) return page;
  }
  for (const prefix of PREFIXES) {
    if (!url.pathname.startsWith(prefix)) continue;
    const name = url.pathname.slice(prefix.length).split('/')[0];
    const handler = functions[name];
    if (!handler) break;
    url.pathname = url.pathname.slice(prefix.length - 1);
    return handler(forwarded(url, req, headers));
  }
  return await noFunction.fetch(req, { pathname: url.pathname });
}

/** A path no function serves: 404, with the functions' CORS, so a browser page can read why. */
const noFunction = new Hono<{ Bindings: { pathname: string } }>()
  .use(cors(corsOptions(deps.allowedOrigins)))
  .all('*', (c) => refused(404, 'NOT_FOUND', `No function at ${c.env.pathname}`));

/**
 * The request's URL under the checked Host, whatever its target says. Deno builds `req.url` from the target
 * when it is in absolute form (`GET http://evil.example/... HTTP/1.1`), so that target would name the origin
 * (a sign-in for its site, a config.json pointing at it) or, unparseable (`http://999.999.999.999/`), throw:
 * only its path and query are kept. Behind the TCP front the server sees `http+unix://<host>/...`; everything
 * here speaks of `http:`, and the pages that read their own URL get a request under it.
 */
function requestUrl(req: Request, host: string): URL {
  const pathAndQuery = req.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  // Written out, not resolved against the host: a path of its own starting `//` would name a host.
  return new URL(`http://${host}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`);
}

/**
 * A fresh request, not `new Request(url, req)`: copying the original's abort signal would tie the
 * handler's work to the connection's lifetime. The Fetch API cannot build one with a forbidden method
 * (TRACE, CONNECT) or a body on GET or HEAD (`get` is read as GET); such a request goes to the function as
 * it came, under its full path, which the function also routes, and is answered there (a 405).
 */
function forwarded(url: URL, req: Request, headers: Headers): Request {
  try {
    return new Request(
      url,
      { method: req.method, headers, body: req.body, duplex: 'half' } as RequestInit,
    );
  } catch {
    return req;
  }
}

/**
 * The HTTP server, on a Unix socket in a folder of its own, behind the TCP front that owns the public port
 * and gives every request a deadline (`lib/tcp-front.ts`). Deno's server stops accepting for good on an
 * accept error and its promise would end the process; here the failure is logged and the socket listened on
 * again.
 */
const SOCKET_FOLDER = 'store-serve-';
const socketDir = await Deno.makeTempDir({ prefix: SOCKET_FOLDER });
const socketPath = `${socketDir}/http.sock`;
await removeStaleSocketFolders(socketDir);

/**
 * The socket folders of servers that ended without removing theirs (killed, or crashed) pile up beside this
 * one's, one a start: each made at least a minute before this one's whose socket takes no connection is
 * removed. A running server's socket takes one; a younger folder may be a server still starting. Ages are
 * read from the file system's clock alone, which a moved clock (`npm run test:at`) leaves as it is.
 */
async function removeStaleSocketFolders(own: string) {
  const temp = own.slice(0, own.lastIndexOf('/'));
  const now = (await Deno.stat(own)).mtime!.getTime();
  for await (const entry of Deno.readDir(temp)) {
    if (!entry.isDirectory || !entry.name.startsWith(SOCKET_FOLDER)) continue;
    const folder = `${temp}/${entry.name}`;
    try {
      const { mtime } = await Deno.stat(folder);
      if (!mtime || now - mtime.getTime() < 60_000) continue;
      (await Deno.connect({ transport: 'unix', path: `${folder}/http.sock` })).close();
    } catch (error) {
      const stale = error instanceof Deno.errors.ConnectionRefused || error instanceof Deno.errors.NotFound;
      if (stale) await Deno.remove(folder, { recursive: true }).catch(() => {});
    }
  }
}

let server: Deno.HttpServer | undefined;
let stopping = false;

function listen() {
  // A later start removes a folder whose socket takes no connection: should it look while this one listens
  // anew (after an accept error), the folder is made again here.
  Deno.mkdirSync(socketDir, { recursive: true });
  try {
    Deno.removeSync(socketPath);
  } catch {
    // Not there yet.
  }
  try {
    server = Deno.serve({
      path: socketPath,
      onListen: () => {},
      // Whatever escapes a function is still answered as JSON; the cause stays in the log.
      onError: (error) => {
        console.error('[serve] unexpected error:', error);
        return refused(500, 'INTERNAL_ERROR', 'An unexpected error occurred');
      },
    }, route);
  } catch (error) {
    if (!server) throw error;
    console.error(`[serve] cannot listen yet (${(error as Error).message}); trying again`);
    setTimeout(listen, 500);
    return;
  }
  server.finished.catch((error) => {
    if (stopping) return;
    console.error(`[serve] the listener failed (${error?.message ?? error}); listening again`);
    setTimeout(listen, 250);
  });
}

listen();

const hostname = Deno.env.get('HOSTNAME') ?? '127.0.0.1';
const port = Number(Deno.env.get('PORT') ?? 54321);
// HTTP_FRONT=off serves the public port with Deno's server alone, without the front's deadlines: for
// `npm run bench -- --front off` to measure what the front costs, never to serve anyone.
const front = Deno.env.get('HTTP_FRONT') === 'off'
  ? bareServer(hostname, port)
  : serveFront({ hostname, port, upstream: socketPath, ...timeoutsFromEnv() });

const memory = releaseMemoryAfterCrowds(() => front.openConnections);

function bareServer(hostname: string, port: number): Front {
  const bare = Deno.serve({ hostname, port, onListen: () => {} }, route);
  return { openConnections: 0, stopAccepting: () => void bare.shutdown(), close: () => bare.finished };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, async () => {
    // A second signal while stopping (Ctrl-C, then a SIGTERM from npm) leaves the first stop to finish.
    if (stopping) return;
    stopping = true;
    // Drained, not dropped: a request already read is answered (a write it committed is never left unsaid),
    // while no new connection is taken. The front's deadlines bound how long that can take.
    memory.stop();
    front.stopAccepting();
    await server?.shutdown();
    await front.close(1_000);
    await deps.db.end();
    await Deno.remove(socketDir, { recursive: true }).catch(() => {});
    Deno.exit(0);
  });
}
