/**
 * The local functions server: one Deno process mounting every function's own handler, the way the
 * Supabase gateway routes `/functions/v1/<name>` to a function. The handlers are the very ones
 * `supabase functions deploy` ships; only the URL prefix is stripped here. CONTRACT §0 also asks for
 * the seeds' `/api/...` and `/api/v1/...` aliases.
 */
import { dependenciesFromEnv } from '../supabase/functions/_shared/deps.ts';
import { API_VERSION, corsHeaders, type Dependencies } from '../supabase/functions/_shared/http.ts';
import { combineDocuments, type OpenApiDocument } from '../supabase/functions/_shared/openapi.ts';

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

async function route(req: Request): Promise<Response> {
  const url = new URL(req.url);
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
