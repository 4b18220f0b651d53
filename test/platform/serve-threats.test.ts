// The local server is a developer tool any web page the developer opens can reach (Vite's server.fs and
// allowedHosts advisories are the threat list): it must read no file outside console/dist whatever the path's
// spelling, answer no foreign Host (DNS rebinding), and offer its local sign-in to no other site.
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, type ExpectStatic, inject, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';

const api = new URL(inject('apiUrl'));

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request sent exactly as written: no URL normalisation, any Host. */
function raw(rawPath: string, { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Raw>((resolve, reject) => {
    const req = request({ host: api.hostname, port: api.port, method, path: rawPath, headers, setHost: !('host' in headers) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const SECRETS = [
  { file: '/etc/passwd', marker: 'root:' },
  { file: `${ROOT}/package.json`, marker: '"devDependencies"' },
];

const outside = path.join(ROOT, 'console', 'dist', 'outside-link');
afterAll(() => rmSync(outside, { force: true }));

describe('the console files: nothing outside console/dist, whatever the spelling', () => {
  const paths = [
    '/console/file:/etc/passwd',
    '/console/file:///etc/passwd',
    '/console/http://example.com/etc/passwd',
    '/console/%252e%252e/%252e%252e/package.json',
    '/console/%2e%2e/%2e%2e/package.json',
    '/console/..%2f..%2fpackage.json',
    '/console/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json',
    '/console/..\\..\\package.json',
    '/console/assets\\..\\..\\package.json',
    '/console//etc/passwd',
    `/console/${ROOT}/package.json`,
    '/console/../package.json',
    '/console/assets/../../package.json',
    '/console/%00',
    '/console/index.html%00.js',
    '/console/outside-link/package.json',
    '/console/outside-link',
    '/console/assets',
    '/console/assets/',
  ];

  it('answers every traversal spelling with a 4xx and never the file; a directory is a 404, not a 500', async () => {
    mkdirSync(path.dirname(outside), { recursive: true });
    rmSync(outside, { force: true });
    symlinkSync(ROOT, outside);
    for (const rawPath of paths) {
      const res = await raw(rawPath);
      expect(res.status, rawPath).toBeGreaterThanOrEqual(400);
      expect(res.status, rawPath).toBeLessThan(500);
      for (const { marker } of SECRETS) expect(res.body, rawPath).not.toContain(marker);
    }
  });

  it('still serves the console itself', async () => {
    const page = await raw('/console/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="app">');
  });
});

describe('DNS rebinding: only loopback names and IP addresses, unless allowed', () => {
  const foreign = { host: `evil.example:${api.port}` };

  it('refuses a foreign Host with a JSON 403 everywhere, the local sign-in first', async () => {
    const signIn = await raw('/local/sign-in', {
      method: 'POST',
      headers: { ...foreign, 'content-type': 'text/plain' },
      body: '{"as":"admin"}',
    });
    expect(signIn.status).toBe(403);
    expect(signIn.body).not.toContain('access_token');
    expect(JSON.parse(signIn.body)).toMatchObject({ success: false, code: 'HOST_NOT_ALLOWED' });
    for (const rawPath of ['/functions/v1/campaign-types', '/console/', '/console/config.json', '/functions/v1/docs']) {
      const res = await raw(rawPath, { headers: foreign });
      expect(res.status, rawPath).toBe(403);
      expect(JSON.parse(res.body), rawPath).toMatchObject({ success: false, code: 'HOST_NOT_ALLOWED' });
    }
  });

  it('answers loopback names and IP addresses', async () => {
    for (const host of ['localhost', '127.0.0.1', '[::1]', 'console.localhost', '192.168.1.20']) {
      const res = await raw('/console/config.json', { headers: { host: `${host}:${api.port}` } });
      expect(res.status, host).toBe(200);
    }
  });

  it('offers the local sign-in to no other site: a cross-site Origin or a non-JSON body is refused', async () => {
    const crossSite = await raw('/local/sign-in', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{"as":"admin"}',
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).not.toContain('access_token');
    const simpleRequest = await raw('/local/sign-in', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"as":"admin"}' });
    expect(simpleRequest.status).toBe(415);
    expect(simpleRequest.body).not.toContain('access_token');
    const sameSite = await raw('/local/sign-in', {
      method: 'POST',
      headers: { origin: api.origin, 'content-type': 'application/json' },
      body: '{"as":"admin"}',
    });
    expect(sameSite.status).toBe(200);
  });

  it('the local sign-in refuses a body declared past 1 KB before reading it: Deno would set the declared size aside for each', async () => {
    const res = await new Promise<string>((resolve) => {
      const socket = connect({ host: api.hostname, port: Number(api.port) });
      let text = '';
      // Answered while the body is still due: the answer is read, then the connection dropped.
      socket.on('data', (chunk) => {
        text += chunk;
        if (/\r\n\r\n.*\}$/s.test(text)) (socket.destroy(), resolve(text));
      });
      socket.on('error', () => {});
      socket.write(`POST /local/sign-in HTTP/1.1\r\nHost: ${api.host}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n{"as":`);
    });
    expect(res).toMatch(/^HTTP\/1\.1 413 /);
    expect(res).not.toContain('access_token');
  });
});

describe('a Host that is not a host name', () => {
  /** One request written byte for byte on a socket of its own: its status and body. */
  function rawBytes(text: string) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = connect(Number(api.port), api.hostname, () => socket.end(text));
      let data = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk) => (data += chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head, ...rest] = data.split('\r\n\r\n');
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: rest.join('\r\n\r\n') });
      });
    });
  }

  const request = (hosts: string[], line = 'GET /console/config.json HTTP/1.1', headers: string[] = [], body = '') =>
    rawBytes(`${line}\r\n${[...hosts.map((h) => `Host: ${h}`), ...headers, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`);

  it('answers a malformed Host with a JSON 400, never a 500, whatever follows it', async () => {
    const malformed = [
      ['[evil.example]'],
      ['999.999.999.999'],
      ['256.1.1.1:80'],
      ['a:80:1'],
      ['localhost:99999'],
      [''],
      ['a b'],
      ['localhost', 'evil.example'],
      ['localhost, evil.example'],
      ['evil.example/local/sign-in?.localhost'],
      ['evil.example?.localhost'],
      ['evil.example#.localhost'],
      ['user@localhost'],
      ['local\u00e9host'],
    ];
    for (const hosts of malformed) {
      const res = await request(hosts);
      expect(res.status, JSON.stringify(hosts)).toBe(400);
      expect(JSON.parse(res.body), JSON.stringify(hosts)).toMatchObject({ success: false, code: 'INVALID_HOST' });
    }
  });

  it('never lets the Host choose the route: a path in it signs nobody in', async () => {
    const body = '{"as":"admin"}';
    const res = await request(['evil.example/local/sign-in?.localhost'], 'POST /x HTTP/1.1',
      ['Content-Type: application/json', `Content-Length: ${body.length}`], body);
    expect(res.status).toBe(400);
    expect(res.body).not.toContain('access_token');
  });

  it('answers an absolute-form target as its checked Host would be answered, never a 500 (issue 44, item 4)', async () => {
    const targets = [
      'http://999.999.999.999/functions/v1/store/openapi.json',
      'http://localhost:99999/functions/v1/store/openapi.json',
      'http://[evil]/functions/v1/store/openapi.json',
      'http://a%zz/functions/v1/store/openapi.json',
      'http://evil.example/functions/v1/store/openapi.json',
    ];
    for (const target of targets) {
      const res = await request(['localhost'], `GET ${target} HTTP/1.1`);
      expect(res.status, target).toBe(200);
      expect(JSON.parse(res.body), target).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
    }
  });

  it('never lets an absolute-form target choose the origin: no sign-in for its site, no config naming it', async () => {
    const body = '{"as":"admin"}';
    const signIn = await request(['localhost'], 'POST http://evil.example/local/sign-in HTTP/1.1',
      ['Origin: http://evil.example', 'Content-Type: application/json', `Content-Length: ${body.length}`], body);
    expect(signIn.status).toBe(403);
    expect(signIn.body).not.toContain('access_token');
    const config = await request([`localhost:${api.port}`], 'GET http://evil.example/console/config.json HTTP/1.1');
    expect(config.status).toBe(200);
    expect(JSON.parse(config.body).supabaseUrl).toBe(`http://localhost:${api.port}`);
    // A path of its own starting with `//` is a path on this host, not another host.
    expect((await request([`localhost:${api.port}`], 'GET //evil.example/console/config.json HTTP/1.1')).status).toBe(404);
  });
});

describe('an unknown API version under a known function', () => {
  it("answers in that function's own envelope", async () => {
    const res = await raw('/api/v2/campaign-types/anything');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, error_code: 'UNSUPPORTED_VERSION' });
  });
});

describe('unfinished connections', () => {
  const net = import('node:net');

  /** A raw connection to `port` that records what it was sent and when the server closed it. */
  async function connection(port: number) {
    const socket = (await net).connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const opened = Date.now();
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
    await new Promise((resolve) => socket.once('connect', resolve));
    return { socket, closed, received: () => received };
  }
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  // Each on a connection of its own to this block's server, so they wait out their deadlines side by side.
  describe.concurrent('every request has a deadline (HTTP_HEADER_TIMEOUT 1 s, HTTP_REQUEST_TIMEOUT 2 s, HTTP_IDLE_TIMEOUT 3 s)', () => {
    let server: Awaited<ReturnType<typeof import('../../scripts/lib/stack.mjs').startFunctions>>;
    let port: number;
    beforeAll(async () => {
      const { freePort, startFunctions } = await import('../../scripts/lib/stack.mjs');
      port = await freePort();
      server = await startFunctions({
        dbUrl: 'postgresql://postgres:postgres@127.0.0.1:9/postgres',
        port,
        env: { HTTP_HEADER_TIMEOUT: '1', HTTP_REQUEST_TIMEOUT: '2', HTTP_IDLE_TIMEOUT: '3' },
      });
    });
    afterAll(() => server?.stop());

    it('a connection that never says anything is closed once the header deadline passes', async ({ expect }) => {
      const { closed } = await connection(port);
      expect(await closed).toBeLessThan(2_000);
    });

    it('half a request is closed once the header deadline passes', async ({ expect }) => {
      const { socket, closed } = await connection(port);
      socket.write('GET /console/config.json HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      expect(await closed).toBeLessThan(2_000);
    });

    it('headers dripped a byte at a time do not hold the connection past the deadline', async ({ expect }) => {
      const { socket, closed } = await connection(port);
      const drip = setInterval(() => socket.write('x'), 100);
      socket.write('GET /console/config.json HTTP/1.1\r\nX-Drip: ');
      const ms = await closed;
      clearInterval(drip);
      expect(ms).toBeLessThan(2_000);
    });

    it('a body that never arrives in full is closed once the request deadline passes', async ({ expect }) => {
      const { socket, closed } = await connection(port);
      socket.write('POST /local/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"as":');
      const ms = await closed;
      expect(ms).toBeGreaterThan(1_000);
      expect(ms).toBeLessThan(3_000);
    });

    /** A connection whose first request, written whole, has been answered 200 `ms` later. */
    async function answeredOnce(ms: number, expect: ExpectStatic) {
      const opened = await connection(port);
      opened.socket.write('GET /console/config.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await sleep(ms);
      expect(opened.received()).toMatch(/^HTTP\/1\.1 200/);
      return opened;
    }

    it('after an answered request, half of the next one is closed too, counting from its first byte', async ({ expect }) => {
      const { socket, closed } = await answeredOnce(1_500, expect);
      const started = Date.now();
      socket.write('GET /console/config.json HTTP/1.1\r\n');
      await closed;
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('a complete request arriving with half of the next is answered at once; the half then meets its deadline', async ({ expect }) => {
      const { socket, closed, received } = await connection(port);
      socket.write('GET /console/config.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /console/config.json HTTP/1.1\r\nHo');
      await sleep(500);
      expect(received()).toMatch(/^HTTP\/1\.1 200/);
      expect(await closed).toBeLessThan(2_000);
    });

    it('blank lines dripped between requests start the next header deadline rather than keeping the connection idle', async ({ expect }) => {
      const { socket, closed } = await answeredOnce(300, expect);
      const started = Date.now();
      const drip = setInterval(() => socket.write('\r'), 200);
      await Promise.race([closed, sleep(5_000)]);
      clearInterval(drip);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('a stream the front cannot follow is closed once the request deadline passes, however it drips', async ({ expect }) => {
      for (const opening of [
        'POST /local/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000\r\n',
        `POST /local/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n1;${'e'.repeat(600)}`,
      ]) {
        const { socket, closed } = await connection(port);
        socket.write(opening);
        const drip = setInterval(() => socket.write(opening.includes(';') ? 'e' : 'a'), 200);
        const ms = await Promise.race([closed, sleep(6_000).then(() => Infinity)]);
        clearInterval(drip);
        socket.destroy();
        expect(ms, opening.slice(0, 80)).toBeLessThan(3_000);
      }
    });

    it('a slow but punctual client is answered, and an idle keep-alive connection is let go', async ({ expect }) => {
      const { socket, closed, received } = await connection(port);
      socket.write('POST /local/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      await sleep(500);
      socket.write('Content-Type: application/json\r\nContent-Length: 14\r\n\r\n{"as":');
      await sleep(700);
      socket.write('"admin"}');
      await sleep(500);
      expect(received()).toMatch(/^HTTP\/1\.1 200/);
      expect(received()).toContain('access_token');
      expect(await closed).toBeLessThan(5_500);
    });
  });

  it('half-open connections beyond the open-file limit time out by themselves, and the server answers again', async () => {
    const { spawn } = await import('node:child_process');
    const { freePort, SERVE_ARGS } = await import('../../scripts/lib/stack.mjs');
    const { JWT_SECRET } = await import('../../scripts/lib/keys.mjs');
    const port = await freePort();
    // A low open-file limit, so a few hundred half-sent requests exhaust it as ~20,000 did at the usual one.
    const deno = path.join(ROOT, 'node_modules', '.bin', 'deno');
    const child = spawn('sh', ['-c', `ulimit -n 128; exec "${deno}" ${SERVE_ARGS.join(' ')}`], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        SUPABASE_JWT_SECRET: JWT_SECRET,
        SUPABASE_DB_URL: 'postgresql://postgres:postgres@127.0.0.1:9/postgres',
        HTTP_HEADER_TIMEOUT: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const config = () =>
      fetch(`http://127.0.0.1:${port}/console/config.json`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, () => 0);
    const sockets: import('node:net').Socket[] = [];
    try {
      const deadline = Date.now() + 30_000;
      while ((await config()) !== 200) {
        if (Date.now() > deadline) throw new Error(`the server did not start: ${output}`);
        await sleep(200);
      }
      const closed: Promise<void>[] = [];
      for (let i = 0; i < 300; i++) {
        const socket = (await net).connect(port, '127.0.0.1');
        socket.on('error', () => {});
        closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
        socket.write('GET /console/ HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        sockets.push(socket);
      }
      // Their clients keep them open; only the server's deadline can free them.
      const allClosed = await Promise.race([Promise.all(closed).then(() => true), sleep(15_000).then(() => false)]);
      expect(allClosed, output).toBe(true);
      expect(child.exitCode, output).toBeNull();
      expect(await config(), output).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
