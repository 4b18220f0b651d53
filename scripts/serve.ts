/**
 * The local functions server: one Deno process mounting every function's own handler, the way the
 * Supabase gateway routes `/functions/v1/<name>` to a function. The handlers are the very ones
 * `supabase functions deploy` ships; only the URL prefix is stripped here. CONTRACT §0 also asks for
 * the seeds' `/api/...` and `/api/v1/...` aliases.
 */
import { dependenciesFromEnv } from '../supabase/functions/_shared/deps.ts';
import { API_VERSION, corsHeaders, type Dependencies } from '../supabase/functions/_shared/http.ts';
import { combineDocuments, type OpenApiDocument } from '../supabase/functions/_shared/openapi.ts';
import { ANON_KEY, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID, JWT_SECRET, mintToken } from './lib/keys.mjs';

type Handler = (req: Request) => Promise<Response>;

const deps = dependenciesFromEnv();
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

// The API reference for people, local only: Swagger UI (swagger-ui-dist from node_modules) over every
// function's own document, combined. Deployed functions serve their documents, not this page.
const DOCS = '/functions/v1/docs';
const SWAGGER_UI = new URL('../node_modules/swagger-ui-dist/', import.meta.url);
const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Store back office API</title>
  <link rel="stylesheet" href="${DOCS}/swagger-ui.css">
</head>
<body>
  <div id="api"></div>
  <script src="${DOCS}/swagger-ui-bundle.js"></script>
  <script>SwaggerUIBundle({ url: '${DOCS}/openapi.json', dom_id: '#api', deepLinking: true });</script>
</body>
</html>
`;

async function combinedDocument(): Promise<OpenApiDocument> {
  const documents = await Promise.all(
    Object.entries(functions).sort(([a], [b]) => a.localeCompare(b)).map(async ([name, handler]) =>
      (await handler(new Request(`http://local/${name}/openapi.json`))).json()
    ),
  );
  return combineDocuments(documents, API_VERSION);
}

async function docs(pathname: string): Promise<Response | undefined> {
  if (pathname === DOCS || pathname === `${DOCS}/`) {
    return new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  }
  if (pathname === `${DOCS}/openapi.json`) return Response.json(await combinedDocument());
  const asset = pathname.slice(DOCS.length + 1);
  if (pathname.startsWith(`${DOCS}/`) && DOCS_ASSETS[asset]) {
    return new Response(await Deno.readFile(new URL(asset, SWAGGER_UI)), {
      headers: { 'content-type': DOCS_ASSETS[asset], 'cache-control': 'public, max-age=3600' },
    });
  }
  return undefined;
}

// The store console (console/dist: `npm run build`, or npm start when it is missing or stale), served as the
// static files it is anywhere else, plus what only this local server offers it: a config.json naming this
// server and the local anon key, and a sign-in as the demo admin or customer. That sign-in exists here
// alone (no deployed function has it), and only while this server verifies tokens with the local secret.
const CONSOLE = '/console';
const CONSOLE_DIST = new URL('../console/dist/', import.meta.url);
const LOCAL_SIGN_IN = '/local/sign-in';
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  woff2: 'font/woff2',
  txt: 'text/plain; charset=utf-8',
};
const DEMO_USERS = {
  admin: { id: DEMO_ADMIN_ID, email: 'admin@example.com' },
  customer: { id: DEMO_CUSTOMER_ID, email: 'customer@example.com' },
} as const;
const SIGN_IN_HOURS = 8;
const localSecret = () => (Deno.env.get('SUPABASE_JWT_SECRET') ?? JWT_SECRET) === JWT_SECRET;

async function consoleFile(req: Request, url: URL): Promise<Response> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return new Response('Method not allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
  }
  if (url.pathname === CONSOLE) return Response.redirect(new URL(`${CONSOLE}/`, url), 301);
  if (url.pathname === `${CONSOLE}/config.json`) {
    return Response.json({ supabaseUrl: url.origin, anonKey: ANON_KEY, localSignIn: localSecret() }, {
      headers: { 'cache-control': 'no-store' },
    });
  }
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname.slice(CONSOLE.length + 1)) || 'index.html';
  } catch {
    return new Response('Bad path', { status: 400 });
  }
  if (relative.split('/').some((part) => part === '..' || part === '') || /[\\\0]/.test(relative)) {
    return new Response('Not found', { status: 404 });
  }
  const extension = relative.split('.').pop() ?? '';
  try {
    const file = await Deno.readFile(new URL(relative, CONSOLE_DIST));
    const headers: Record<string, string> = {
      'content-type': CONTENT_TYPES[extension] ?? 'application/octet-stream',
      // Vite names assets by content hash; everything else is read fresh.
      'cache-control': relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
    };
    // Gzipped as a static host would send it, so local loads weigh what deployed ones do.
    if (/\bgzip\b/.test(req.headers.get('accept-encoding') ?? '') && /^(html|js|css|json|svg|txt)$/.test(extension)) {
      headers['content-encoding'] = 'gzip';
      return new Response(new Blob([file]).stream().pipeThrough(new CompressionStream('gzip')), { headers });
    }
    return new Response(file, { headers });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    if (relative === 'index.html') {
      return new Response(
        '<!doctype html><title>Store console</title><p>The console is not built yet: run <code>npm run build</code> ' +
          '(or restart <code>npm start</code>, which builds it when console/dist is missing).</p>',
        { status: 503, headers: { 'content-type': 'text/html; charset=utf-8' } },
      );
    }
    return new Response('Not found', { status: 404 });
  }
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

async function route(req: Request): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname === CONSOLE || url.pathname.startsWith(`${CONSOLE}/`)) return consoleFile(req, url);
  if (url.pathname === LOCAL_SIGN_IN) return localSignIn(req);
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
    return handler(forwarded(url, req));
  }
  return Response.json(
    { success: false, error: `No function at ${url.pathname}`, code: 'NOT_FOUND' },
    { status: 404, headers: corsHeaders(req, deps.allowedOrigins) },
  );
}

/**
 * A fresh request, not `new Request(url, req)`: copying the original's abort signal would tie the
 * handler's work to the connection's lifetime. The Fetch API cannot build one with a forbidden method
 * (TRACE, CONNECT) or a body on GET or HEAD (`get` is read as GET); such a request goes to the function as
 * it came, under its full path, which the function also routes, and is answered there (a 405).
 */
function forwarded(url: URL, req: Request): Request {
  try {
    return new Request(
      url,
      { method: req.method, headers: req.headers, body: req.body, duplex: 'half' } as RequestInit,
    );
  } catch {
    return req;
  }
}

const server = Deno.serve({
  port: Number(Deno.env.get('PORT') ?? 54321),
  hostname: Deno.env.get('HOSTNAME') ?? '127.0.0.1',
  onListen: () => {},
  // Whatever escapes a function is still answered as JSON; the cause stays in the log.
  onError: (error) => {
    console.error('[serve] unexpected error:', error);
    return Response.json({ success: false, error: 'An unexpected error occurred', code: 'INTERNAL_ERROR' }, {
      status: 500,
    });
  },
}, route);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.shutdown();
    await deps.db.end();
    Deno.exit(0);
  });
}
