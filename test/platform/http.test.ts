import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../supabase/functions/_shared/http.ts';
import { DatabaseError } from '../../supabase/functions/_shared/db.ts';
import { catalogueArea } from '../../supabase/functions/_shared/errors.ts';
import { apiUrl, call, database, tokens, unique } from '../support/client.ts';

const sql = database();
const ONE_MIB = 1024 * 1024;

describe('CORS', () => {
  it('answers a preflight without credentials, allowing the Supabase client headers', async () => {
    const res = await fetch(`${apiUrl}/functions/v1/campaign-types`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = res.headers.get('access-control-allow-headers')!.split(',').map((h) => h.trim());
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'x-client-info', 'apikey', 'content-type', 'accept', 'idempotency-key']),
    );
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('marks ordinary responses and errors alike', async () => {
    expect((await call('campaign-types')).headers.get('access-control-allow-origin')).toBe('*');
    expect((await call('campaign-types', { token: null })).headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('the request pipeline', () => {
  it('answers an unknown route with 404 in the function envelope', async () => {
    const res = await call('campaign-types/some/where/else');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error_code: 'NOT_FOUND', error: expect.any(String) });
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await call('campaign-types', { method: 'PATCH', body: {} });
    expect(res.status).toBe(405);
    // Hono's Allow names HEAD wherever GET is answered.
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(res.body).toMatchObject({ success: false, error_code: 'METHOD_NOT_ALLOWED' });
  });

  it('refuses malformed JSON with 400', async () => {
    const res = await call('campaign-types', { method: 'POST', rawBody: '{"type_code": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR', details: { field: 'body' } });
  });

  it('refuses a body that is not JSON with 415 (zod-openapi\'s status), naming the content type', async () => {
    const type_code = unique('form');
    const res = await call('campaign-types', {
      method: 'POST',
      rawBody: `type_code=${type_code}&display_name_zh=x&attribution_layer=general`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.details).toMatchObject({ field: 'content-type' });
    expect(await sql`select 1 from public.campaign_type_config where type_code = ${type_code}`).toHaveLength(0);
  });

  it('refuses a body over 1 MiB with 413, declared or streamed', async () => {
    const big = JSON.stringify({ type_code: 'big', display_name_zh: 'x', attribution_layer: 'general', description: 'x'.repeat(ONE_MIB) });
    const declared = await call('campaign-types', { method: 'POST', rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ success: false, error_code: 'PAYLOAD_TOO_LARGE' });

    const chunks = [new TextEncoder().encode(big.slice(0, ONE_MIB / 2)), new TextEncoder().encode(big.slice(ONE_MIB / 2))];
    const stream = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const streamed = await fetch(`${apiUrl}/functions/v1/campaign-types`, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.admin}` },
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('accepts a body just under 1 MiB (the limit is the limit, not less)', async () => {
    const body = { type_code: unique('near'), display_name_zh: 'x', attribution_layer: 'general', description: 'y' };
    const padded = JSON.stringify(body).replace('}', `${' '.repeat(ONE_MIB - JSON.stringify(body).length)}}`);
    expect(Buffer.byteLength(padded)).toBe(ONE_MIB);
    const res = await call('campaign-types', { method: 'POST', rawBody: padded, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
  });
});

describe('a 500', () => {
  it('leaks no SQL, driver message or stack', () => {
    for (const error of [
      new DatabaseError('42P01: relation "secret_table" does not exist'),
      new Error('select password from users'),
    ]) {
      const reply = errorReply(error, catalogueArea);
      expect(reply.status).toBe(500);
      expect(reply.body).toEqual({ success: false, error: expect.any(String), error_code: 'INTERNAL_ERROR' });
      expect(JSON.stringify(reply.body)).not.toMatch(/secret_table|password|select|at /i);
    }
  });
});

/** A request with one header of `size` bytes, over a bare socket: fetch would refuse some sizes itself. */
function withHeaderOf(size: number): Promise<{ status: number; contentType: string }> {
  const url = new URL(apiUrl);
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port) });
    let text = '';
    socket.on('connect', () =>
      socket.write(
        `GET /functions/v1/campaign-types HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${tokens.customer}\r\n` +
          `x-padding: ${'a'.repeat(size)}\r\nconnection: close\r\n\r\n`,
      ));
    socket.on('data', (chunk) => (text += chunk));
    const answer = () => {
      const head = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
      const contentType = head.find((line) => line.toLowerCase().startsWith('content-type:'))?.slice(13).trim() ?? '';
      resolve({ status: Number(head[0].split(' ')[1]), contentType });
    };
    // A server that answers and closes while the oversized request is still being written resets the
    // connection; its answer may have arrived first, or been dropped with the reset (status 0).
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') return reject(error);
      if (text.includes('\r\n\r\n')) answer();
      else resolve({ status: 0, contentType: '' });
    });
    socket.on('end', answer);
  });
}

describe('protocols the local server does not speak', () => {
  it('an HTTP/2 connection (its preface, then frames that hold an empty line) is refused at once with a JSON 505 and closed', async () => {
    const url = new URL(apiUrl);
    const socket = createConnection({ host: url.hostname, port: Number(url.port) });
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const started = Date.now();
    // The preface, a SETTINGS frame and a HEADERS frame whose bytes happen to hold "\n\n" (never ending its stream).
    socket.write(Buffer.concat([
      Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
      Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
      Buffer.from([0, 0, 2, 1, 4, 0, 0, 0, 1, 0x0a, 0x0a]),
    ]));
    await closed;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(text).toMatch(/^HTTP\/1\.1 505 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'HTTP_VERSION_NOT_SUPPORTED' });
  });
});

/** A request of `count` header fields before its Authorization (the last), over a bare socket. */
function withFieldsBefore(count: number, extra = ''): Promise<{ status: number; body: string }> {
  const url = new URL(apiUrl);
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port) });
    let text = '';
    const fields = Array.from({ length: count }, (_, i) => `x-field-${i}: ${i}\r\n`).join('');
    socket.on('connect', () =>
      socket.write(
        `GET /functions/v1/campaign-types HTTP/1.1\r\nhost: ${url.host}\r\n${fields}${extra}` +
          `authorization: Bearer ${tokens.customer}\r\nconnection: close\r\n\r\n`,
      ));
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }));
  });
}

describe('oversized requests', () => {
  it('any number of header fields within the head limit reach the function, the last one included (Deno alone refuses a 129th)', async () => {
    for (const count of [127, 200, 2_500]) {
      const res = await withFieldsBefore(count);
      expect(res.status, `${count} fields`).toBe(200);
      expect(JSON.parse(res.body).success).toBe(true);
    }
    // Fields past the 128th are still what the function reads: an Accept asking for a version it lacks.
    const versioned = await withFieldsBefore(300, 'accept: application/vnd.api+json;version=9.0\r\n');
    expect(versioned.status).toBe(406);
    // The packed field sent by a client is no way to smuggle a second Host in.
    const smuggled = await withFieldsBefore(10, 'x-packed-fields: host:evil.example\r\n');
    expect(smuggled.status).toBe(400);
  });

  it('headers up to 60 KB reach the function; past 64 KiB a JSON 431 before any handler, and the server keeps serving', async () => {
    expect(await withHeaderOf(60_000)).toEqual({ status: 200, contentType: 'application/json' });
    expect(await withHeaderOf(100_000)).toEqual({ status: 431, contentType: 'application/json; charset=utf-8' });
    expect((await call('campaign-types', { token: tokens.customer })).status).toBe(200);
  });

  it('a URL of 20,000 query parameters is a JSON 414, not an empty 400', async () => {
    const query = Array.from({ length: 20_000 }, (_, i) => `p${i}=1`).join('&');
    const res = await fetch(`${apiUrl}/functions/v1/campaign-types?${query}`, {
      headers: { authorization: `Bearer ${tokens.customer}` },
    });
    expect(res.status).toBe(414);
    expect(await res.json()).toMatchObject({ success: false, code: 'URI_TOO_LONG' });
  });

  it('a URL just past the limit, whose end arrives with the headers, is a 414 too, not a 431', async () => {
    for (const length of [66_000, 100_000, 130_000]) {
      const res = await fetch(`${apiUrl}/functions/v1/campaign-types?q=${'a'.repeat(length)}`, {
        headers: { authorization: `Bearer ${tokens.customer}` },
      });
      expect(res.status, String(length)).toBe(414);
      expect(await res.json()).toMatchObject({ success: false, code: 'URI_TOO_LONG' });
    }
  });
});
