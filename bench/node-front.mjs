// For measuring only: Node's HTTP server as the local server's front, in place of scripts/lib/tcp-front.ts
// (issue 35 asked whether a well-kept server gives the same deadlines with less code of ours). It keeps
// the same three deadlines with Node's own settings (headersTimeout, requestTimeout, keepAliveTimeout) and
// passes every request to the Deno server on a Unix socket over kept-alive connections. The HTTP ceiling
// runs behind it (`BEHIND_FRONT=node` in bench/http-ceiling.ts), and the bench counts this process's CPU
// with Deno's.
import http from 'node:http';

const port = Number(process.env.PORT);
const upstream = process.env.UPSTREAM;
const seconds = (name, fallback) => 1000 * Number(process.env[name] ?? fallback);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

const server = http.createServer((req, res) => {
  const forwarded = http.request(
    { socketPath: upstream, path: req.url, method: req.method, headers: req.headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forwarded.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(forwarded);
});
server.headersTimeout = seconds('HTTP_HEADER_TIMEOUT', 10);
server.requestTimeout = seconds('HTTP_REQUEST_TIMEOUT', 30);
server.keepAliveTimeout = seconds('HTTP_IDLE_TIMEOUT', 60);
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
