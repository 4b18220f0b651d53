// The TCP front's deadlines are only as good as its reading of where requests begin and end: a request read
// as finished too early loses its body deadline, one never read as finished is cut off while idle.
import { describe, expect, it } from 'vitest';
import { MAX_FIELDS, MAX_HEAD_BYTES, packFields, PACKED_FIELDS, RequestFraming, unpackFields } from '../../scripts/lib/request-framing.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `text` split at every given offset and returns the phase after each piece. */
function phases(text: string, cuts: number[] = []): string[] {
  const framing = new RequestFraming();
  const data = bytes(text);
  const edges = [0, ...cuts, data.length];
  return edges.slice(1).map((end, i) => {
    framing.feed(data.subarray(edges[i], end));
    return framing.phase;
  });
}

/** Feeds `text` one byte at a time and returns the number of requests read as complete. */
function completeRequests(text: string): { started: number; phase: string } {
  const framing = new RequestFraming();
  for (const byte of bytes(text)) framing.feed(Uint8Array.of(byte));
  return { started: framing.requestsStarted, phase: framing.phase };
}

const GET = 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n';
const POST = (body: string) => `POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const CHUNKED = 'POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\n';

describe('where a request ends, so its deadline ends with it', () => {
  it('a request without a body ends with its headers; half of one is still in its headers', () => {
    expect(phases(GET)).toEqual(['idle']);
    expect(phases(GET, [20])).toEqual(['headers', 'idle']);
  });

  it('a body ends after Content-Length bytes, however the bytes are split', () => {
    const post = POST('{"a":1}');
    expect(phases(post, [post.length - 3])).toEqual(['body', 'idle']);
    expect(completeRequests(post)).toEqual({ started: 1, phase: 'idle' });
  });

  it('a chunked body ends after its last chunk and trailers, read byte by byte', () => {
    expect(phases(CHUNKED, [CHUNKED.length - 2])).toEqual(['body', 'idle']);
    expect(completeRequests(CHUNKED)).toEqual({ started: 1, phase: 'idle' });
  });

  it('pipelined requests in one read are each counted, and a body that looks like headers is body', () => {
    const framing = new RequestFraming();
    framing.feed(bytes(GET + POST('GET / HTTP/1.1\r\n\r\n') + CHUNKED + 'GE'));
    expect(framing.requestsStarted).toBe(4);
    expect(framing.phase).toBe('headers');
  });

  it('bare LF line endings and empty lines before a request are read as Deno reads them', () => {
    expect(completeRequests('\r\n\nGET / HTTP/1.1\nHost: x\n\n')).toEqual({ started: 1, phase: 'idle' });
  });

  it('a Content-Length with leading zeros is its number, however many there are', () => {
    expect(phases(`POST / HTTP/1.1\r\nContent-Length: ${'0'.repeat(20)}2\r\n\r\n{}`)).toEqual(['idle']);
    expect(phases(`POST / HTTP/1.1\r\nContent-Length: ${'0'.repeat(20)}2\r\n\r\n{`)).toEqual(['body']);
  });

  it("blank lines between requests are told apart from silence, and a request's headers are counted complete", () => {
    const framing = new RequestFraming();
    framing.feed(bytes(GET));
    expect([framing.headersCompleted, framing.awaitingRequestLine]).toEqual([1, false]);
    framing.feed(bytes('\r'));
    expect([framing.phase, framing.awaitingRequestLine]).toEqual(['idle', true]);
    framing.feed(bytes('\nGET / HTTP/1.1\r\n'));
    expect([framing.phase, framing.awaitingRequestLine, framing.headersCompleted]).toEqual(['headers', false, 1]);
  });

  it('a stream it cannot follow is said to be so, not guessed at', () => {
    expect(phases('POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n')).toEqual(['opaque']);
    expect(phases('POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n')).toEqual(['opaque']);
    expect(phases('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')).toEqual(['opaque']);
  });

  it('a head past the limit is refused, a long URL told apart from long headers however the bytes arrive', () => {
    const longUrl = new RequestFraming();
    longUrl.feed(bytes(`GET /?${'a'.repeat(MAX_HEAD_BYTES)}`));
    expect([longUrl.phase, longUrl.refusal]).toEqual(['refused', 'url-too-long']);
    // A request line of 65.6 to 130 KB whose end arrives in the read that crosses the limit is still a long URL.
    const longUrlEnded = new RequestFraming();
    longUrlEnded.feed(bytes(`GET /?${'a'.repeat(MAX_HEAD_BYTES + 1_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect([longUrlEnded.phase, longUrlEnded.refusal]).toEqual(['refused', 'url-too-long']);
    const longHeaders = new RequestFraming();
    longHeaders.feed(bytes(`GET / HTTP/1.1\r\nX-A: ${'a'.repeat(MAX_HEAD_BYTES / 2)}\r\nX-B: ${'b'.repeat(MAX_HEAD_BYTES / 2)}`));
    expect([longHeaders.phase, longHeaders.refusal]).toEqual(['refused', 'headers-too-large']);
    expect(phases(`GET / HTTP/1.1\r\nX-A: ${'a'.repeat(MAX_HEAD_BYTES - 100)}\r\n\r\n`)).toEqual(['idle']);
  });

  it('the HTTP/2 preface is refused at its first line, before any frame could read as a finished request', () => {
    const preface = new RequestFraming();
    preface.feed(bytes('PRI * HTTP/2.0\r\n'));
    expect([preface.phase, preface.refusal, preface.headersCompleted]).toEqual(['refused', 'http-version', 0]);
    expect(phases('GET / HTTP/1.0\r\n\r\n')).toEqual(['idle']);
    expect(phases('GET / HTTP/1.1\r\nX-Version: HTTP/2.0\r\n\r\n')).toEqual(['idle']);
  });

  it('a head naming two Hosts is refused, one Host is not', () => {
    const twoHosts = new RequestFraming();
    twoHosts.feed(bytes('GET / HTTP/1.1\r\nHost: localhost\r\nhost : evil.example\r\n\r\n'));
    expect([twoHosts.phase, twoHosts.refusal]).toEqual(['refused', 'several-hosts']);
    expect(phases('GET / HTTP/1.1\r\nHost: localhost\r\nX-Host: evil.example\r\n\r\n')).toEqual(['idle']);
  });

  it('passes every head on whole and unchanged up to the fields Deno takes, and packs the rest losslessly beyond', () => {
    const framing = new RequestFraming();
    framing.feed(bytes(GET.slice(0, 10)));
    expect(framing.take()).toEqual([]);
    framing.feed(bytes(GET.slice(10) + POST('abc').slice(0, 60)));
    expect(new TextDecoder().decode(Buffer.concat(framing.take()))).toBe(GET + POST('abc').slice(0, 60));

    const odd = ['x-percent: 100%25 %09', 'x-tab: a\tb', 'X-Case: Mixed', 'x-latin1: caf\u00e9', 'cookie: a=1', 'cookie: b=2'];
    const fields = [...Array.from({ length: MAX_FIELDS }, (_, i) => `x-f${i}: ${i}`), ...odd, 'Content-Length: 3'];
    const head = `POST / HTTP/1.1\r\nHost: x\r\n${fields.join('\r\n')}\r\n\r\n`;
    const packed = packFields(head);
    const lines = packed.split('\r\n');
    expect(lines.length - 3).toBeLessThanOrEqual(MAX_FIELDS);
    expect(lines.slice(0, 2)).toEqual(['POST / HTTP/1.1', 'Host: x']);
    expect(lines).toContain('Content-Length: 3');
    expect(packed.endsWith('\r\n\r\n')).toBe(true);
    // Smaller than the lines it replaces, unless the fields are full of `%` and tabs.
    const plain = `GET / HTTP/1.1\r\n${Array.from({ length: 300 }, (_, i) => `x-f${i}: ${i}\r\n`).join('')}\r\n`;
    expect(packFields(plain).length).toBeLessThan(plain.length);
    const received = new Headers(
      lines.slice(1, -2).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]),
    );
    const expected = new Headers(
      ['Host: x', ...fields].map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]),
    );
    expect([...unpackFields(received)!].sort()).toEqual([...expected].sort());
    expect(packFields(GET)).toBe(GET);
    expect(unpackFields(new Headers({ [PACKED_FIELDS]: 'content-length:9' }))).toBeNull();
  });
});
