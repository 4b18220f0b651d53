/**
 * The local functions server: one Deno process mounting every function's own handler, the way the
 * Supabase gateway routes `/functions/v1/<name>` to a function. The handlers are the very ones
 * `supabase functions deploy` ships; only the URL prefix is stripped here. CONTRACT §0 also asks for
 * the seeds' `/api/...` and `/api/v1/...` aliases.
 */
import { dependenciesFromEnv } from '../supabase/functions/_shared/deps.ts';
import type { Dependencies } from '../supabase/functions/_shared/http.ts';

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

function route(req: Request): Promise<Response> | Response {
  const url = new URL(req.url);
  for (const prefix of PREFIXES) {
    if (!url.pathname.startsWith(prefix)) continue;
    const name = url.pathname.slice(prefix.length).split('/')[0];
    const handler = functions[name];
    if (!handler) break;
    url.pathname = url.pathname.slice(prefix.length - 1);
    // A fresh request, not `new Request(url, req)`: copying the original's abort signal would tie the
    // handler's work to the connection's lifetime.
    return handler(
      new Request(url, { method: req.method, headers: req.headers, body: req.body, duplex: 'half' } as RequestInit),
    );
  }
  return Response.json(
    { success: false, error: `No function at ${url.pathname}`, code: 'NOT_FOUND' },
    { status: 404, headers: { 'access-control-allow-origin': '*' } },
  );
}

const server = Deno.serve({
  port: Number(Deno.env.get('PORT') ?? 54321),
  hostname: Deno.env.get('HOSTNAME') ?? '127.0.0.1',
  onListen: () => {},
}, route);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.shutdown();
    await deps.db.end();
    Deno.exit(0);
  });
}
