// The HTTP ceiling: a bare Deno.serve answering a fixed JSON body of about a list response's size. No
// routing, auth or database, so a function can at best match it.
const body = JSON.stringify({ success: true, data: Array.from({ length: 14 }, (_, i) => ({ type_code: `type_${i}`, default_weight: 1.5 })) });
Deno.serve(
  { port: Number(Deno.env.get('PORT')), hostname: '127.0.0.1', onListen: () => {} },
  () => new Response(body, { headers: { 'content-type': 'application/json' } }),
);
