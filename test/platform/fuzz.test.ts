// Hostile input never gets a 5xx: a few thousand seeded random requests across every route and method of
// every function, listed from the OpenAPI document each function builds from its own route table and serves,
// so a new route is fuzzed without touching this file. Each request starts from a plausible one and breaks
// something: NUL and lone surrogates in any text, year 0000 and impossible dates, malformed percent-encoding,
// deeply nested JSON, huge numbers, wrong types, empty and long strings, odd methods and content types,
// duplicate query parameters. Every answer must be below 500 and carry the function's JSON envelope (a
// function's OpenAPI document itself is answered bare). On a database and functions server of its own, so its writes and
// its anonymous requests touch no other test's data or rate-limit window.
// FUZZ_SEED=<n> replays a run; FUZZ_REQUESTS=<n> sizes it.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { ANON_KEY, scratchDatabase, tokens } from '../support/client.ts';
import { FUNCTION_NAMES } from '../support/openapi.ts';
import { seededRandom } from '../support/random.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const IN_FLIGHT = 8;

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
};

interface FuzzRoute {
  method: string;
  /** The document's path template under `/functions/v1`, a path parameter as `{name}`. */
  path: string;
  params: Record<string, JsonSchema>;
  query?: JsonSchema;
  body?: JsonSchema;
  /** The function's own OpenAPI document, which answers with the document rather than the envelope. */
  document: boolean;
}

interface Operation {
  parameters?: { name: string; in: string; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function operations(document: Document) {
  return Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({ template, method, operation }))
  );
}

/**
 * Every route of every function, from the OpenAPI document the function builds from its own route table and
 * serves: the router's table, however a route is written, with the input side of the zod schemas it checks.
 */
async function routeTables(base: URL): Promise<FuzzRoute[]> {
  const routes: FuzzRoute[] = [];
  for (const fn of FUNCTION_NAMES) {
    const res = await fetch(new URL(`/functions/v1/${fn}/openapi.json`, base));
    expect(res.status, `GET /functions/v1/${fn}/openapi.json`).toBe(200);
    for (const { template, method, operation } of operations(await res.json())) {
      const parameters = (where: 'path' | 'query') =>
        Object.fromEntries(
          (operation.parameters ?? []).filter((p) => p.in === where).map((p) => [p.name, p.schema]),
        );
      const query = parameters('query');
      routes.push({
        method: method.toUpperCase(),
        path: template,
        params: parameters('path'),
        query: Object.keys(query).length ? { type: 'object', properties: query } : undefined,
        body: operation.requestBody?.content['application/json']?.schema,
        document: template === `/${fn}/openapi.json`,
      });
    }
  }
  return routes;
}

type Random = ReturnType<typeof generator>;

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Values that have broken, or could break, something between the socket and PostgreSQL. */
const HOSTILE_TEXT = [
  'a\u0000b',
  '\u0000',
  'x\ud800',
  '\udc00y',
  '\ud83d',
  '0000-01-01',
  '0000-12-31T00:00:00Z',
  '2026-02-30',
  '9999-12-31',
  '-0001-01-01',
  '',
  ' ',
  'é中文🙂\u202e',
  'x'.repeat(5000),
  "'; drop table products; --",
  '%zz',
  '1e999',
  'NaN',
  '-1',
  '99999999999999999999999999',
  '00000000-0000-0000-0000-000000000000',
  'true',
  'null',
];
const HOSTILE_VALUES: unknown[] = [
  ...HOSTILE_TEXT,
  0,
  -1,
  1.005,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 63,
  true,
  false,
  null,
  [],
  {},
  [null],
  { nested: { deeper: ['\u0000'] } },
  Array.from({ length: 600 }, () => randomUUID()),
];

/** A value the schema would accept, as far as a schema in JSON can say. */
function plausible(schema: JsonSchema | undefined, key: string, r: Random): unknown {
  if (!schema) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return r.pick(schema.enum);
  if (schema.anyOf) return plausible(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0], key, r);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [name, plausible(property, name, r)]),
      );
    case 'array':
      return Array.from({ length: Math.max(schema.minItems ?? 1, 1) }, () => plausible(schema.items, key, r));
    case 'number':
    case 'integer':
      return schema.minimum !== undefined && schema.minimum > 0 ? schema.minimum : r.pick([1, 2, 5]);
    case 'boolean':
      return r.chance(0.5);
    default:
      if (/(^|_)ids?$/.test(key)) return randomUUID();
      if (schema.pattern) {
        const pattern = new RegExp(schema.pattern);
        const fits = ['2026-03-15', '1', '12.5', `fuzz_${r.int(1e6)}`, 'a'].find((value) => pattern.test(value));
        if (fits) return fits;
      }
      if (/_at$/.test(key)) return new Date(Date.now() - r.int(1e9)).toISOString();
      return `fuzz ${r.int(1e6)}`;
  }
}

function hostile(r: Random): unknown {
  return r.chance(0.7) ? r.pick(HOSTILE_TEXT) : r.pick(HOSTILE_VALUES);
}

/** One field of an object broken, or a field added, removed or retyped. */
function mutate(value: unknown, r: Random): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return hostile(r);
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const roll = r.next();
  if (keys.length && roll < 0.75) {
    const key = r.pick(keys);
    copy[key] = Array.isArray(copy[key]) && r.chance(0.5)
      ? [...(copy[key] as unknown[]), hostile(r)]
      : typeof copy[key] === 'object' && copy[key] !== null && r.chance(0.5)
      ? mutate(copy[key], r)
      : hostile(r);
  } else if (keys.length && roll < 0.85) {
    delete copy[r.pick(keys)];
  } else {
    copy[r.pick(['extra', '\u0000', 'x\ud800', '__proto__', 'constructor'])] = hostile(r);
  }
  return copy;
}

/** A path segment for a `{param}`: usually plausible, often hostile, sometimes not valid percent-encoding. */
function segment(schema: JsonSchema | undefined, name: string, r: Random): string {
  const roll = r.next();
  if (roll < 0.4) return encodeURIComponent(String(plausible(schema, name, r)));
  if (roll < 0.55) return r.pick(['%zz', '%', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%00', '%FF', 'a%2Fb', '..', '%2e%2e']);
  const value = hostile(r);
  return encodeURIComponent(typeof value === 'string' ? value.replace(/[\ud800-\udfff]/g, '\ufffd') : String(value));
}

interface Probe {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent over a raw socket: fetch refuses these methods and rewrites some paths. */
  raw: boolean;
  /** Sent to the function's own OpenAPI document, whose success answer is the document, not the envelope. */
  document?: boolean;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/vnd.api+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  '',
];

function probe(routes: FuzzRoute[], r: Random): Probe {
  const route = r.pick(routes);
  const segments = route.path.split('/').filter(Boolean).map((part) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    return name ? segment(route.params[name], name, r) : part;
  });
  let urlPath = `/functions/v1/${segments.join('/')}`;
  if (r.chance(0.05)) urlPath += r.pick(['/', '/extra', '//', '/%zz']);

  const query = new URLSearchParams();
  if (route.query) {
    const values = plausible(route.query, '', r) as Record<string, unknown>;
    const chosen = r.chance(0.7) ? mutate(values, r) : values;
    if (chosen && typeof chosen === 'object' && !Array.isArray(chosen)) {
      for (const [key, value] of Object.entries(chosen)) {
        if (r.chance(0.4)) continue;
        const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
        query.append(key, text);
        if (r.chance(0.1)) query.append(key, text);
      }
    }
  } else if (r.chance(0.2)) {
    query.append(r.pick(['page', 'x', '\u0000', 'limit']), String(hostile(r)));
  }
  let search = query.size ? `?${query}` : '';
  if (r.chance(0.05)) search = r.pick(['?%zz=1', '?a=%', '?a=%ED%A0%80', '?&&=&', '?a=1&a=2&a=%00']);

  const method = r.chance(0.85)
    ? route.method
    : r.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'get', 'Post', 'PROPFIND']);

  let body: string | undefined;
  const roll = r.next();
  if (route.body && roll < 0.6) {
    const value = plausible(route.body, '', r);
    body = JSON.stringify(r.chance(0.9) ? mutate(value, r) : value);
  } else if (roll < 0.65) {
    body = deepArray(r.pick([1000, 50_000]));
  } else if (roll < 0.7) {
    body = `{"a":${deepArray(20_000)}}`;
  } else if (roll < 0.78) {
    body = r.pick(['', '{', 'null', '[]', '"\\u0000"', '{"a":"\\ud800"}', '1e999', '{"__proto__":{"x":1}}', '\u0000']);
  } else if (roll < 0.82) {
    body = JSON.stringify(hostile(r));
  }

  const headers: Record<string, string> = {};
  const token = r.pick([tokens.admin, tokens.admin, tokens.admin, tokens.service, tokens.customer, ANON_KEY, '', 'x.y.z']);
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = r.chance(0.8) ? 'application/json' : r.pick(CONTENT_TYPES);
  if (r.chance(0.05)) headers.accept = r.pick(['application/vnd.api+json;version=9', 'application/vnd.api+json;version=1', '*/*']);
  if (r.chance(0.1)) headers['idempotency-key'] = r.pick(['', 'k'.repeat(300), `fuzz-${r.int(100)}`, '%00']);

  const raw = !['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].includes(method) ||
    /%(zz|$|E0%A4%A|ED|C0|FF)|\/\/|\.\./.test(urlPath) || r.chance(0.1);
  // CONNECT names a host and port, not a path (a path is refused by Deno's HTTP parser before any code of
  // ours runs, with an empty 400).
  if (method === 'CONNECT') return { method, path: `127.0.0.1:${r.int(65536)}`, headers, raw };
  return { method, path: `${urlPath}${search}`, headers, body, raw, document: route.document };
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Over a bare socket, as written: fetch refuses TRACE and CONNECT, and node's client treats CONNECT apart. */
function sendRaw(base: URL, p: Probe): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(p.body ?? '');
    const head = [
      `${p.method} ${p.path} HTTP/1.1`,
      `host: ${base.host}`,
      'connection: close',
      ...Object.entries(p.headers).map(([name, value]) => `${name}: ${value}`),
      ...(p.body === undefined ? [] : [`content-length: ${body.length}`]),
    ].join('\r\n');
    const socket = connect({ host: base.hostname, port: Number(base.port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    // Written, not ended: a half-closed connection reads to the server as a client gone away.
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body])));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const lines = text.slice(0, split).split('\r\n');
      const header = (name: string) =>
        lines.find((line) => line.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? '';
      let payload = text.slice(split + 4);
      if (/chunked/i.test(header('transfer-encoding'))) {
        let decoded = '';
        for (let at = 0;;) {
          const eol = payload.indexOf('\r\n', at);
          const size = parseInt(payload.slice(at, eol), 16);
          if (!size) break;
          decoded += payload.slice(eol + 2, eol + 2 + size);
          at = eol + 2 + size + 2;
        }
        payload = decoded;
      }
      resolve({ status: Number(lines[0].split(' ')[1]), contentType: header('content-type'), text: payload });
    });
  });
}

async function send(base: URL, p: Probe): Promise<Answer> {
  if (p.raw) return sendRaw(base, p);
  const res = await fetch(new URL(p.path, base), {
    method: p.method,
    headers: p.headers,
    body: ['GET', 'HEAD'].includes(p.method) ? undefined : p.body,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** What is wrong with an answer, or nothing. */
function problemWith(p: Probe, answer: Answer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}`;
  // A preflight answers `ok` and HEAD carries no body, by design.
  if (p.method === 'OPTIONS' || p.method === 'HEAD') return undefined;
  if (!/^application\/json/.test(answer.contentType)) {
    return `${answer.status} with content-type ${answer.contentType || 'none'} ${JSON.stringify(answer.text.slice(0, 80))}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'a body that is not JSON';
  }
  if (p.document && answer.status < 400) return undefined;
  const envelope = body as { success?: unknown };
  if (envelope?.success !== (answer.status < 400)) return `success ${String(envelope?.success)} with ${answer.status}`;
  return undefined;
}

// A database of its own, made from the suite's migrated one, and a functions server of its own over it.
const database = scratchDatabase('fuzz');
let functions: Awaited<ReturnType<typeof startFunctions>>;

beforeAll(async () => {
  await database.createMigrated();
  functions = await startFunctions({ dbUrl: database.url, port: await freePort() });
}, 120_000);

afterAll(async () => {
  await functions?.stop();
});

describe('hostile input', () => {
  it('each class of input that once got a 500 gets a 4xx in the function envelope', async () => {
    const base = new URL(functions.url);
    const admin = { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' };
    const campaign = (fields: Record<string, unknown>) =>
      JSON.stringify({
        name: 'Fuzz class',
        start_date: '2026-03-01',
        end_date: '2026-03-31',
        budget: 10,
        campaign_type: 'flash_sale',
        ...fields,
      });
    const cases: [string, Probe][] = [
      ['NUL in a text field', { method: 'POST', path: '/functions/v1/campaigns', headers: admin, body: campaign({ name: 'a\u0000b' }), raw: false }],
      ['a lone surrogate in a text field', { method: 'POST', path: '/functions/v1/stock-in', headers: admin, body: `{"product_id":"${randomUUID()}","quantity":1,"note":"x\\ud800"}`, raw: false }],
      ['NUL in the query', { method: 'GET', path: '/functions/v1/campaigns?search=a%00b', headers: admin, raw: false }],
      ['NUL in the path', { method: 'DELETE', path: '/functions/v1/campaign-types/a%00b', headers: admin, raw: false }],
      ['year 0000 in a date', { method: 'GET', path: '/functions/v1/campaigns/attribution?date=0000-01-01', headers: admin, raw: false }],
      ['year 0000 in a date-time', { method: 'POST', path: '/functions/v1/stock-in', headers: admin, body: `{"product_id":"${randomUUID()}","quantity":1,"received_at":"0000-06-01T00:00:00Z"}`, raw: false }],
      ['malformed percent-encoding in the path', { method: 'GET', path: '/functions/v1/campaigns/%zz', headers: admin, raw: true }],
      ['percent-encoded bytes that are not UTF-8', { method: 'GET', path: '/functions/v1/campaigns/%ED%A0%80', headers: admin, raw: true }],
      ['JSON nested 50,000 deep', { method: 'POST', path: '/functions/v1/campaigns', headers: admin, body: deepArray(50_000), raw: false }],
      ['JSON nested 50,000 deep inside a field', { method: 'POST', path: '/functions/v1/campaigns', headers: admin, body: campaign({ name: '@' }).replace('"@"', deepArray(50_000)), raw: false }],
      ['TRACE', { method: 'TRACE', path: '/functions/v1/campaigns', headers: admin, raw: true }],
      ['CONNECT', { method: 'CONNECT', path: base.host, headers: admin, raw: true }],
      ['lowercase get with a body', { method: 'get', path: '/functions/v1/campaigns', headers: admin, body: '{}', raw: true }],
    ];
    const wrong: string[] = [];
    for (const [name, p] of cases) {
      const answer = await send(base, p);
      const problem = answer.status >= 400 && answer.status < 500 ? problemWith(p, answer) : `status ${answer.status}`;
      if (problem) wrong.push(`${name}: ${problem}`);
    }
    expect(wrong).toEqual([]);
  });

  it('never gets a 5xx, and always the JSON envelope, across every route and method of every function', async () => {
    const base = new URL(functions.url);
    const routes = await routeTables(base);
    // Every operation of docs/openapi.json, which openapi.test.ts keeps equal to the served documents: a
    // route left out of the fuzz fails here instead of going unfuzzed.
    const combined = JSON.parse(await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(routes.length).toBe(operations(combined).length);
    expect(routes.length).toBeGreaterThan(15);
    const r = seededRandom(SEED);
    const probes = Array.from({ length: REQUESTS }, () => probe(routes, r));
    const failures: string[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < probes.length) {
        const p = probes[next++];
        let problem: string | undefined;
        try {
          problem = problemWith(p, await send(base, p));
        } catch (error) {
          problem = `no answer: ${(error as Error).message}`;
        }
        if (problem) {
          const body = p.body === undefined ? '' : ` body ${JSON.stringify(p.body.slice(0, 120))}`;
          failures.push(`${problem}: ${p.method} ${p.path.slice(0, 160)}${body}`);
        }
      }
    }));
    if (failures.length) console.info(functions.output().slice(-20_000));
    console.info(`fuzz: ${probes.length} requests over ${routes.length} routes (seed ${SEED}), ${failures.length} failed`);
    expect(failures.slice(0, 30), `${failures.length} of ${probes.length} requests failed (FUZZ_SEED=${SEED})`)
      .toEqual([]);
  }, 120_000);
});
