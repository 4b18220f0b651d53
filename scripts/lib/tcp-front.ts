/**
 * The local server's TCP front: it owns the public port and hands each connection to the HTTP server behind
 * it, on a Unix socket only this process uses, once the connection's first request has its headers. Deno's
 * HTTP server has no header-read or idle timeout (denoland/deno#3515), so without this a client that sends
 * half a request and waits holds a file descriptor for as long as it likes, and enough of them exhaust the
 * process. Here every request must send its headers within `headerTimeoutMs` of its first byte (the first
 * request: of the connection's opening) and its body within `requestTimeoutMs`; a connection with no request
 * arriving and no bytes either way for `idleTimeoutMs` is closed. A connection is one file descriptor until
 * its first request is whole, so unfinished ones cost a third of what they did.
 */
import { MAX_HEAD_BYTES, type Refusal, RequestFraming } from './request-framing.ts';

export interface Timeouts {
  headerTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
}

export interface FrontOptions extends Timeouts {
  hostname: string;
  port: number;
  /** The Unix socket the HTTP server listens on. */
  upstream: string;
}

/** The deadlines, from HTTP_HEADER_TIMEOUT (10), HTTP_REQUEST_TIMEOUT (30) and HTTP_IDLE_TIMEOUT (60), in seconds. */
export function timeoutsFromEnv(): Timeouts {
  const seconds = (name: string, fallback: number) => 1000 * Number(Deno.env.get(name) ?? fallback);
  return {
    headerTimeoutMs: seconds('HTTP_HEADER_TIMEOUT', 10),
    requestTimeoutMs: seconds('HTTP_REQUEST_TIMEOUT', 30),
    idleTimeoutMs: seconds('HTTP_IDLE_TIMEOUT', 60),
  };
}

interface Connection {
  client: Deno.TcpConn;
  upstream?: Deno.UnixConn;
  framing: RequestFraming;
  /** When the current (or last) request began; for the first request, when the connection opened. */
  requestStart: number;
  lastActivity: number;
  closed: boolean;
}

/**
 * Each open connection holds two of these (one per direction) for as long as it is open, unfinished ones
 * included: 16 KiB each, not 64, keeps 5,000 held connections at 160 MB.
 */
const BUFFER_BYTES = 16 * 1024;
const SWEEP_MS = 250;
/** How long a refused request's remaining bytes are read and dropped, so its answer is not lost to a reset. */
const DRAIN_MS = 1_000;

/** The answer to a refused head (`RequestFraming.refusal`), in the local server's own envelope (`scripts/serve.ts`). */
function refusal(reason: Refusal): Uint8Array {
  const limit = MAX_HEAD_BYTES.toLocaleString('en');
  const [status, body] = {
    'url-too-long': ['414 URI Too Long', {
      success: false,
      error: `The URL is longer than ${limit} bytes`,
      code: 'URI_TOO_LONG',
    }],
    'headers-too-large': ['431 Request Header Fields Too Large', {
      success: false,
      error: `The request line and headers are larger than ${limit} bytes`,
      code: 'REQUEST_HEADERS_TOO_LARGE',
    }],
    'several-hosts': ['400 Bad Request', {
      success: false,
      error: 'The Host header is not a host name',
      code: 'INVALID_HOST',
    }],
    'http-version': ['505 HTTP Version Not Supported', {
      success: false,
      error: 'This server speaks HTTP/1.1 only',
      code: 'HTTP_VERSION_NOT_SUPPORTED',
    }],
  }[reason] as [string, object];
  const json = JSON.stringify(body);
  return new TextEncoder().encode(
    `HTTP/1.1 ${status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${json.length}\r\n` +
      `connection: close\r\n\r\n${json}`,
  );
}

export interface Front {
  /** How many client connections are open. */
  readonly openConnections: number;
  /**
   * Stops taking connections and closes those that have not yet sent one request's headers. The others stay
   * with the HTTP server, which answers what it has read and closes them as it drains (`Deno.HttpServer.shutdown`);
   * their deadlines still hold meanwhile.
   */
  stopAccepting(): void;
  /**
   * Once the HTTP server has closed its side of every connection, lets the answers still on their way pass
   * to the clients (for at most `graceMs`), then closes whatever is left.
   */
  close(graceMs?: number): Promise<void>;
}

export function serveFront(options: FrontOptions): Front {
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const open = new Set<Connection>();
  let stopped = false;

  const deadline = (connection: Connection): number => {
    const { framing } = connection;
    if (
      framing.phase === 'headers' ||
      (framing.phase === 'idle' && (framing.requestsStarted === 0 || framing.awaitingRequestLine))
    ) {
      return connection.requestStart + options.headerTimeoutMs;
    }
    // A stream the front cannot follow gets the time of one request in all, however it drips.
    if (framing.phase === 'body' || framing.phase === 'opaque') {
      return connection.requestStart + options.requestTimeoutMs;
    }
    if (framing.phase === 'refused') return connection.requestStart + DRAIN_MS;
    return connection.lastActivity + options.idleTimeoutMs;
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const connection of open) if (now > deadline(connection)) close(connection);
  }, SWEEP_MS);

  function close(connection: Connection) {
    if (connection.closed) return;
    connection.closed = true;
    open.delete(connection);
    for (const conn of [connection.client, connection.upstream]) {
      try {
        conn?.close();
      } catch {
        // Already closed by its peer.
      }
    }
  }

  async function fromClient(connection: Connection) {
    const buffer = new Uint8Array(BUFFER_BYTES);
    const waiting: Uint8Array[] = [];
    try {
      for (;;) {
        const read = await connection.client.read(buffer);
        if (read === null) break;
        const bytes = buffer.subarray(0, read);
        if (connection.framing.phase === 'refused') continue;
        const { requestsStarted: started, awaitingRequestLine: awaiting } = connection.framing;
        if (connection.framing.feed(bytes) === 'refused') {
          await refuse(connection);
          continue;
        }
        connection.lastActivity = Date.now();
        // The next request's deadline runs from its first byte, a blank line before its request line included.
        const { requestsStarted, awaitingRequestLine } = connection.framing;
        if (started > 0 && (requestsStarted > started ? !awaiting : awaitingRequestLine && !awaiting)) {
          connection.requestStart = connection.lastActivity;
        }
        const out = connection.framing.take();
        if (connection.upstream) {
          for (const part of out) await writeAll(connection.upstream, part);
          continue;
        }
        for (const part of out) waiting.push(part.slice());
        // Handed over as soon as one request's headers are complete, even if half of the next came with it.
        if (connection.framing.headersCompleted === 0) continue;
        connection.upstream = await Deno.connect({ transport: 'unix', path: options.upstream });
        // Closed by the sweep while connecting: close(connection) has already run without this socket.
        if (connection.closed) return connection.upstream.close();
        toClient(connection);
        for (const part of waiting.splice(0)) await writeAll(connection.upstream, part);
      }
      if (!connection.upstream) return close(connection);
      await connection.upstream.closeWrite();
    } catch {
      close(connection);
    }
  }

  /**
   * Answers a refused head (414, 431, 400 or 505) and stops sending; the rest of what the client sends is read
   * and dropped until it closes or `DRAIN_MS` pass. A response of the HTTP server still under way on this
   * connection (a pipelined request) is cut off with it.
   */
  async function refuse(connection: Connection) {
    connection.upstream?.close();
    connection.upstream = undefined;
    connection.requestStart = Date.now();
    await writeAll(connection.client, refusal(connection.framing.refusal!));
    await connection.client.closeWrite();
  }

  async function toClient(connection: Connection) {
    const upstream = connection.upstream!;
    const buffer = new Uint8Array(BUFFER_BYTES);
    try {
      for (;;) {
        const read = await upstream.read(buffer);
        if (read === null) break;
        connection.lastActivity = Date.now();
        await writeAll(connection.client, buffer.subarray(0, read));
      }
    } catch {
      // The client went away or was closed by the sweep; either way the connection ends here.
    }
    // Unless a refusal took the connection over from the HTTP server (`refuse`).
    if (connection.upstream === upstream) close(connection);
  }

  (async () => {
    let failing = false;
    while (!stopped) {
      let client: Deno.TcpConn;
      try {
        client = await listener.accept() as Deno.TcpConn;
      } catch (error) {
        if (stopped || error instanceof Deno.errors.BadResource) return;
        // Out of file descriptors, say: the connections already open go on, and their timeouts free some.
        if (!failing) console.error(`[serve] cannot accept connections (${(error as Error).message}); retrying`);
        failing = true;
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      failing = false;
      client.setNoDelay(true);
      const now = Date.now();
      const connection: Connection = {
        client,
        framing: new RequestFraming(),
        requestStart: now,
        lastActivity: now,
        closed: false,
      };
      open.add(connection);
      fromClient(connection);
    }
  })();

  return {
    get openConnections() {
      return open.size;
    },
    stopAccepting() {
      if (stopped) return;
      stopped = true;
      try {
        listener.close();
      } catch {
        // Already closed (the listener failed); the connections below still need closing.
      }
      for (const connection of open) if (!connection.upstream) close(connection);
    },
    async close(graceMs = 0) {
      this.stopAccepting();
      const until = Date.now() + graceMs;
      while (open.size > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      clearInterval(sweep);
      for (const connection of open) close(connection);
    },
  };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array) {
  for (let written = 0; written < bytes.length;) written += await conn.write(bytes.subarray(written));
}
