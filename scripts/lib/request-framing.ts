/**
 * Where each HTTP/1.1 request begins and ends in a client's byte stream, read as the bytes pass through. The
 * local server's TCP front (`tcp-front.ts`) needs only this much of HTTP to give every request a deadline: it
 * must know when a request has started, when its headers are complete, and when its body is. Parsing proper
 * stays with Deno's server; when this reader cannot follow a stream (a malformed chunk size, an unknown
 * transfer coding), it says so and the front falls back to the request deadline. A head too large for Deno's
 * server, one naming more than one Host, or one of another protocol, it reports for the front to refuse in
 * JSON (Deno's server would answer with an empty 400, or switch to HTTP/2). What it passes on (`take`) is
 * what came, each head held until it is whole, and changed in one case only: a head of more fields than
 * Deno's server takes has the rest packed into one (`packFields`), which the server unpacks.
 */

export type Phase =
  /** Between requests: nothing of the next one has arrived. */
  | 'idle'
  /** The request line and headers are arriving. */
  | 'headers'
  /** The headers are complete; the body is arriving. */
  | 'body'
  /** This reader cannot follow the stream any further. */
  | 'opaque'
  /** A head the front answers itself (`refusal` says why); nothing more of the stream is read. */
  | 'refused';

/**
 * Why a head is refused: a request line past `MAX_HEAD_BYTES`, a head past it, more than one Host, or a
 * protocol other than HTTP/1.x (the HTTP/2 preface, `PRI * HTTP/2.0`).
 */
export type Refusal = 'url-too-long' | 'headers-too-large' | 'several-hosts' | 'http-version';

const LF = 0x0a;
const CR = 0x0d;
/**
 * The most bytes of request line and headers a request may have. Deno's server refuses a head past 65,540
 * bytes with an empty, non-JSON 400 (measured on 2.9.6); the front refuses it first, in JSON.
 */
export const MAX_HEAD_BYTES = 65_536;

/**
 * The most header fields Deno's server takes in one head (measured on 2.x: the 129th field is an empty 400,
 * whatever the head's size).
 */
export const MAX_FIELDS = 128;
/** The field a head's fields past `MAX_FIELDS` travel in, packed (`packFields`, `unpackFields`). */
export const PACKED_FIELDS = 'x-packed-fields';
/** Fields that frame the request or name its site: never packed, so Deno's server reads them itself. */
const UNPACKABLE_FIELDS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/** A request line of HTTP/1.0 or 1.1, the versions the front follows. */
const HTTP_1 = /\sHTTP\/1\.[01]\r?\n$/;

type BodyState =
  | { kind: 'length'; remaining: number }
  | { kind: 'chunk-size'; line: string }
  | { kind: 'chunk-data'; remaining: number }
  | { kind: 'chunk-end'; remaining: number }
  | { kind: 'trailers'; lineLength: number };

export class RequestFraming {
  phase: Phase = 'idle';
  /** Requests begun, counting from the connection's first. */
  requestsStarted = 0;
  /** Requests whose headers are complete: from the first on, the HTTP server can be handed the stream. */
  headersCompleted = 0;
  /**
   * Between requests, whether bytes have arrived all the same (the empty lines a client may send before a
   * request line): they begin the next request's header deadline, as its first byte would.
   */
  awaitingRequestLine = false;
  /** With `refused`: why. */
  refusal: Refusal | undefined;
  #head = '';
  #body: BodyState | undefined;
  #out: Uint8Array[] = [];

  /** Reads the next bytes the client sent; returns the phase they leave the stream in. */
  feed(bytes: Uint8Array): Phase {
    let at = 0;
    while (at < bytes.length && this.phase !== 'opaque' && this.phase !== 'refused') {
      const from = at;
      if (this.phase === 'body') {
        at = this.#readBody(bytes, at);
        this.#out.push(bytes.subarray(from, at));
      } else {
        // A head is passed on once whole (`#headersDone`); blank lines before it are dropped, as Deno would.
        at = this.#readHead(bytes, at);
      }
    }
    if (this.phase === 'opaque' && at < bytes.length) this.#out.push(bytes.subarray(at));
    return this.phase;
  }

  /**
   * What to pass on to the HTTP server since the last call, in order: bodies as they came, each head once
   * whole. Body parts are views of the bytes fed: pass them on (or copy them) before feeding the next.
   */
  take(): Uint8Array[] {
    const out = this.#out;
    this.#out = [];
    return out;
  }

  #readHead(bytes: Uint8Array, from: number): number {
    let at = from;
    // Empty lines before a request line are ignored, as servers must (RFC 9112 §2.2).
    if (this.phase === 'idle') {
      while (at < bytes.length && (bytes[at] === CR || bytes[at] === LF)) at++;
      if (at === bytes.length) {
        this.awaitingRequestLine ||= at > from;
        return at;
      }
      this.phase = 'headers';
      this.awaitingRequestLine = false;
      this.requestsStarted++;
    }
    for (;;) {
      const lf = bytes.indexOf(LF, at);
      const end = lf === -1 ? bytes.length : lf + 1;
      this.#head += latin1(bytes, at, end);
      if (this.#head.length > MAX_HEAD_BYTES) {
        // The request line alone is past the limit when no line ends within it, whatever follows.
        const lineEnd = this.#head.indexOf('\n');
        return this.#refuse(lineEnd === -1 || lineEnd > MAX_HEAD_BYTES ? 'url-too-long' : 'headers-too-large');
      }
      at = end;
      if (lf === -1) return at;
      // Deno's server would switch to HTTP/2 on its preface, whose frames this reader cannot follow (a frame
      // holding an empty line would read as a finished request and lift its deadline): refused at its first line.
      if (
        this.#head.indexOf('\n') === this.#head.length - 1 && !HTTP_1.test(this.#head) &&
        /\sHTTP\/\S*\r?\n$/.test(this.#head)
      ) {
        return this.#refuse('http-version');
      }
      // A line of its own (`\n` or `\r\n`) ends the headers; Deno's parser accepts bare LF too.
      if (this.#head.endsWith('\n\n') || this.#head.endsWith('\n\r\n')) return this.#headersDone(at);
    }
  }

  /** Refuses the stream: nothing more of it is read. */
  #refuse(reason: Refusal): number {
    this.phase = 'refused';
    this.refusal = reason;
    this.#head = '';
    return Infinity;
  }

  #headersDone(at: number): number {
    const head = this.#head;
    this.#head = '';
    this.headersCompleted++;
    if ((head.match(/\nhost\s*:/gi)?.length ?? 0) > 1) return this.#refuse('several-hosts');
    this.#out.push(latin1Bytes(packFields(head)));
    const encoding = /\ntransfer-encoding\s*:([^\r\n]*)/i.exec(head)?.[1].trim().toLowerCase();
    if (encoding !== undefined) {
      if (!encoding.endsWith('chunked')) {
        this.phase = 'opaque';
        return at;
      }
      return this.#startBody({ kind: 'chunk-size', line: '' }, at);
    }
    const lengths = [...head.matchAll(/\ncontent-length\s*:([^\r\n]*)/gi)].map((m) => m[1].trim());
    if (lengths.length === 0) return this.#endRequest(at);
    // Leading zeros are no part of the size (RFC 9110 reads the digits as a number), so `000…01` is 1.
    if (!lengths.every((value) => value === lengths[0]) || !/^0*\d{1,15}$/.test(lengths[0])) {
      this.phase = 'opaque';
      return at;
    }
    const length = Number(lengths[0]);
    return length === 0 ? this.#endRequest(at) : this.#startBody({ kind: 'length', remaining: length }, at);
  }

  #startBody(state: BodyState, at: number): number {
    this.#body = state;
    this.phase = 'body';
    return at;
  }

  #endRequest(at: number): number {
    this.#body = undefined;
    this.phase = 'idle';
    return at;
  }

  #readBody(bytes: Uint8Array, at: number): number {
    const body = this.#body!;
    switch (body.kind) {
      case 'length':
      case 'chunk-data':
      case 'chunk-end': {
        const taken = Math.min(body.remaining, bytes.length - at);
        body.remaining -= taken;
        if (body.remaining > 0) return at + taken;
        if (body.kind === 'length') return this.#endRequest(at + taken);
        this.#body = body.kind === 'chunk-data'
          ? { kind: 'chunk-end', remaining: 2 }
          : { kind: 'chunk-size', line: '' };
        return at + taken;
      }
      case 'chunk-size': {
        const lf = bytes.indexOf(LF, at);
        const end = lf === -1 ? bytes.length : lf + 1;
        body.line += latin1(bytes, at, end);
        if (lf === -1) {
          if (body.line.length > 1024) this.phase = 'opaque';
          return end;
        }
        const size = /^([0-9a-f]{1,12})\s*(?:;[^\n]*)?\r?\n$/i.exec(body.line)?.[1];
        if (size === undefined) {
          this.phase = 'opaque';
          return end;
        }
        const length = parseInt(size, 16);
        this.#body = length === 0 ? { kind: 'trailers', lineLength: 0 } : { kind: 'chunk-data', remaining: length };
        return end;
      }
      case 'trailers': {
        // Trailer lines end at an empty line; only the current line's length matters.
        for (let i = at; i < bytes.length; i++) {
          if (bytes[i] === LF) {
            if (body.lineLength === 0) return this.#endRequest(i + 1);
            body.lineLength = 0;
          } else if (bytes[i] !== CR || body.lineLength > 0) {
            body.lineLength++;
          }
        }
        return bytes.length;
      }
    }
  }
}

function latin1(bytes: Uint8Array, from: number, to: number): string {
  let text = '';
  for (let i = from; i < to; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, Math.min(to, i + 8192)));
  }
  return text;
}

function latin1Bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** `%` and tab, the only characters escaped in packed fields: a tab separates them, `%` escapes. */
const escapeField = (text: string) => text.replace(/[%\t]/g, (c) => (c === '%' ? '%25' : '%09'));
const unescapeField = (text: string) => text.replace(/%25|%09/g, (c) => (c === '%25' ? '%' : '\t'));

/**
 * A whole head as Deno's server will take it: unchanged with up to `MAX_FIELDS` fields; with more, the fields
 * past the first `MAX_FIELDS - 1` packed into `PACKED_FIELDS` (each `name:value`, tab-separated, `%` and tab
 * escaped), which is smaller than the lines they came in. A head with an obsolete folded line is left for
 * Deno's server to refuse.
 */
export function packFields(head: string): string {
  let lines = 0;
  for (let at = head.indexOf('\n'); at !== -1 && lines <= MAX_FIELDS + 2; at = head.indexOf('\n', at + 1)) lines++;
  // The request line and the empty line that ends the head are no fields.
  if (lines - 2 <= MAX_FIELDS) return head;
  const [requestLine, ...fields] = head.split('\n').slice(0, -2).map((line) => line.replace(/\r$/, ''));
  if (fields.some((line) => /^[ \t]/.test(line) || !line.includes(':'))) return head;
  const kept: string[] = [];
  const packed: string[] = [];
  for (const line of fields) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    // Room is left for the unpackable fields still to come, and for the packed one.
    if (UNPACKABLE_FIELDS.has(name.toLowerCase()) || kept.length < MAX_FIELDS - 1 - UNPACKABLE_FIELDS.size) {
      kept.push(line);
    } else packed.push(`${escapeField(name)}:${escapeField(line.slice(colon + 1).trim())}`);
  }
  return [requestLine, ...kept, `${PACKED_FIELDS}: ${packed.join('\t')}`, '', ''].join('\r\n');
}

/**
 * `headers` with the fields `packFields` packed in their place, or null when the packed field is not what it
 * packs (a client may send that field itself: it gains nothing it could not send as fields, and a framing
 * field or a second packed one in it is refused).
 */
export function unpackFields(headers: Headers): Headers | null {
  const packed = headers.get(PACKED_FIELDS);
  if (packed === null) return headers;
  const unpacked = new Headers(headers);
  unpacked.delete(PACKED_FIELDS);
  for (const field of packed.split('\t')) {
    const colon = field.indexOf(':');
    const name = unescapeField(field.slice(0, colon));
    if (colon === -1 || UNPACKABLE_FIELDS.has(name.toLowerCase()) || name.toLowerCase() === PACKED_FIELDS) return null;
    try {
      unpacked.append(name, unescapeField(field.slice(colon + 1)));
    } catch {
      return null;
    }
  }
  return unpacked;
}
