// The HTTP ceiling: a bare Deno.serve answering a fixed JSON body of about a list response's size. No
// routing, auth or database, so a function can at best match it. With BEHIND_FRONT=1 the same server sits
// behind the local server's TCP front (`scripts/lib/tcp-front.ts`), as the functions do, so the two
// ceilings side by side are what the front's deadlines cost per request. With BEHIND_FRONT=node it sits
// behind Node's HTTP server instead (bench/node-front.mjs), for the comparison in docs/reliability.md.
import { serveFront, timeoutsFromEnv } from '../scripts/lib/tcp-front.ts';

const body = JSON.stringify({
  success: true,
  data: Array.from({ length: 14 }, (_, i) => ({ type_code: `type_${i}`, default_weight: 1.5 })),
});
const handler = () => new Response(body, { headers: { 'content-type': 'application/json' } });
const port = Number(Deno.env.get('PORT'));

if (Deno.env.get('BEHIND_FRONT') === 'node') {
  // Behind Node's HTTP server (bench/node-front.mjs, started by the bench beside this process).
  Deno.serve({ path: Deno.env.get('UPSTREAM')!, onListen: () => {} }, handler);
} else if (Deno.env.get('BEHIND_FRONT')) {
  const folder = await Deno.makeTempDir({ prefix: 'http-ceiling-' });
  const upstream = `${folder}/http.sock`;
  Deno.serve({ path: upstream, onListen: () => {} }, handler);
  serveFront({ hostname: '127.0.0.1', port, upstream, ...timeoutsFromEnv() });
  // The bench ends this process with SIGTERM: the socket's folder goes with it, not left in the temp folder.
  Deno.addSignalListener('SIGTERM', () => {
    Deno.removeSync(folder, { recursive: true });
    Deno.exit(0);
  });
} else {
  Deno.serve({ port, hostname: '127.0.0.1', onListen: () => {} }, handler);
}
