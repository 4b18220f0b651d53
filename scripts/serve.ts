/**
 * The local functions server: one Deno process mounting every function's own handler, the way the
 * Supabase gateway routes `/functions/v1/<name>` to a function. The handlers are the very ones
 * `supabase functions deploy` ships; only the URL prefix is stripped here. CONTRACT §0 also asks for
 * the seeds' `/api/...` and `/api/v1/...` aliases.
 */
import { dependenciesFromEnv } from '../supabase/functions/_shared/deps.ts';
import { createHandler as campaignTypes } from '../supabase/functions/campaign-types/index.ts';

const deps = dependenciesFromEnv();
const functions: Record<string, (req: Request) => Promise<Response>> = {
  'campaign-types': campaignTypes(deps),
};

const PREFIXES = ['/functions/v1/', '/api/v1/', '/api/'];

function route(req: Request): Promise<Response> | Response {
  const url = new URL(req.url);
  for (const prefix of PREFIXES) {
    if (!url.pathname.startsWith(prefix)) continue;
    const name = url.pathname.slice(prefix.length).split('/')[0];
    const handler = functions[name];
    if (!handler) break;
    url.pathname = url.pathname.slice(prefix.length - 1);
    return handler(new Request(url, req));
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
