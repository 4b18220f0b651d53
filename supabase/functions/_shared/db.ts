/**
 * Database access: one transaction per request, in which the caller's role and JWT claims are set the
 * way PostgREST sets them, so RLS policies and `auth.uid()` hold for a function call exactly as for
 * `supabase-js` table access. The identity and the work's first statement leave together after BEGIN, with
 * named prepared statements so no statement waits on a describe; COMMIT follows only once the work is
 * done. BEGIN is its own round trip: postgres.js's `begin` races the transaction against its connection's
 * close, and a transaction on a reserved connection (which could send BEGIN in the same burst) has no such
 * race, so a query queued on a connection that dies never settles and its request hangs. Prepared
 * statements are off for a pooler in transaction mode that cannot keep them: from the start for Supavisor's
 * port 6543 or `DB_PREPARE=false`, and from its first sign for any other. Every request has one bound,
 * `DB_REQUEST_TIMEOUT`, past which it is a 503 and its transaction can no longer commit.
 *
 * SQL functions report business failures the PostgREST way: SQLSTATE `PTxxx` carries the HTTP status,
 * the message is the error code, `detail` the human message and `hint` a JSON object of details.
 */
import postgres from 'postgres';
import type { Caller } from './caller.ts';
import { ApiError, type Area, retryLater } from './errors.ts';
import { isErrorCode } from './enums.ts';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

export interface Database {
  sql: Sql;
  /**
   * Runs `work` in one transaction as `caller`; retried whole on a serialization failure or deadlock. Given
   * up after the request timeout (503), and then rolled back, never committed, whenever it gets that far.
   */
  asCaller<T>(caller: Caller, area: Area, work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * One statement outside a request's transaction (a rate-limit hit, a user lookup), bounded the same way:
   * by `answerBy` when the request has one.
   */
  bounded<T>(statement: Promise<T>, answerBy?: number): Promise<T>;
  /**
   * Serves one request under one bound for everything it waits on: a pooled connection, a rate-limit row, a
   * report slot, its statements. `work` gets the moment it must be answered by, for its caller's `answerBy`,
   * so `asCaller` and `bounded` count from the request's start rather than their own; past the bound the
   * request is answered 503, and what still runs is abandoned (rolled back, never committed).
   */
  withinBound<T>(work: (answerBy: number) => Promise<T>): Promise<T>;
  end(): Promise<void>;
}

/** A database failure that must not reach the client: logged, answered with a bare 500. */
export class DatabaseError extends Error {}

/**
 * The database did not answer within the request timeout: it is stalled (stopped, swapping, its disk hung)
 * or every connection is held by requests that are. The request is answered 503 like an outage.
 */
export class DatabaseStalled extends Error {
  readonly code = 'DATABASE_STALLED';
  constructor(seconds: number) {
    super(`no answer within ${seconds} s`);
  }
}

/** Thrown inside a transaction given up on, so it rolls back instead of committing late. */
class Abandoned extends Error {}

const RETRYABLE = new Set(['40001', '40P01']);
/** A prepared statement missing, or its name taken, on the server connection: a transaction pooler's doing. */
const POOLER_FAILURES = new Set(['26000', '42P05']);
const MAX_ATTEMPTS = 4;

/** Before a retry, a random wait that grows with the attempt, so transactions that collided do not again. */
const retryPause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));

/**
 * How long a statement waits for a row or table lock, as a share of the request's bound (2 s of the default
 * 8). Requests queued on one hot row would otherwise hold their pool connections until the statement timeout,
 * and every other request, reads of unrelated rows too, would wait behind them for a connection.
 */
// A quarter: requests queued behind a hot row for a connection as well still get their 409 within the bound,
// after up to three rounds of waiting.
const LOCK_SHARE_OF_BOUND = 0.25;
const LOCK_RETRY_AFTER = 1;

/** Driver failures (postgres.js and the socket under it) that mean the connection is gone or never came. */
const CONNECTION_FAILURES = new Set(
  ('DATABASE_STALLED CONNECTION_CLOSED CONNECTION_DESTROYED CONNECTION_ENDED CONNECT_TIMEOUT ECONNREFUSED ' +
    'ECONNRESET ECONNABORTED EPIPE ETIMEDOUT EHOSTUNREACH ENETUNREACH ENOTFOUND EAI_AGAIN').split(' '),
);

/**
 * Server errors after which PostgreSQL closes the connection or refuses new ones: class 08, shutdown and
 * crash (57P01, 57P02), still starting or recovering (57P03), no connection slot left (53300). And a
 * statement cancelled by its timeout (57014): the database is too slow to answer now, which the client may
 * retry.
 */
const SERVER_UNAVAILABLE = /^(08...|57P0[123]|53300|57014)$/;

/** A statement cancelled, by its timeout or by an operator (pg_cancel_backend): its connection lives on. */
const STATEMENT_CANCELLED = '57014';

/** True when the failure took the connection with it, so nothing more can be sent on it. */
function connectionGone(error: unknown): boolean {
  return isUnavailable(error) && !(error instanceof postgres.PostgresError && error.code === STATEMENT_CANCELLED);
}

/** True when the failure is the database being away, not the request: the client may retry it. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof postgres.PostgresError) return SERVER_UNAVAILABLE.test(error.code);
  return error instanceof Error && 'code' in error && CONNECTION_FAILURES.has(String(error.code));
}

export interface DatabaseOptions {
  /** Connections in the pool; 8 measured best on 2 cores (more only queue inside PostgreSQL). */
  max?: number;
  /** Named prepared statements; on unless the URL is a transaction-mode pooler (port 6543). */
  prepare?: boolean;
  /**
   * Seconds a request may wait on the database in all (a free connection, its statements, COMMIT) before it
   * is answered 503; the statement timeout is the same, so the server gives up on its side too.
   */
  requestTimeout?: number;
}

/**
 * DB_REQUEST_TIMEOUT's default: well above a report's worst case, short enough that a stall is a prompt 503;
 * the statement timeout Supabase sets for `authenticated`.
 */
export const DEFAULT_REQUEST_TIMEOUT = 8;

/** postgres.js's codes for a query that failed because its pool closed the connection under it. */
const CLOSED_UNDER_IT = new Set(['CONNECTION_DESTROYED', 'CONNECTION_ENDED', 'CONNECTION_CLOSED']);
let closedConnectionsGuarded = false;

/**
 * A pool ended under running queries (rebuilt without prepared statements, see unprepare) rejects them from a
 * timer, and postgres.js sends some of its own that no caller awaits (a ROLLBACK, porsager/postgres#1154):
 * such a rejection reaches no request. Left alone it ends the process, and with it every request the server
 * holds (a suite run through PgBouncer once lost the local server so). It is logged instead; any other
 * unhandled rejection still ends the process.
 */
function guardClosedConnections() {
  if (closedConnectionsGuarded) return;
  closedConnectionsGuarded = true;
  globalThis.addEventListener('unhandledrejection', (event) => {
    const code = (event.reason as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !CLOSED_UNDER_IT.has(code)) return;
    event.preventDefault();
    console.warn(`[db] a query on a closed connection failed with no request waiting for it (${code})`);
  });
}

export function createDatabase(url: string, options: DatabaseOptions = {}): Database {
  guardClosedConnections();
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  const statementTimeout = `${requestTimeout}s`;
  const lockTimeout = `${Math.round(requestTimeout * 1000 * LOCK_SHARE_OF_BOUND)}ms`;

  /**
   * `attempt(isAbandoned)` raced against the request timeout. Once given up on, the work still running is
   * told so (it checks `isAbandoned` before committing) and its late outcome is ignored.
   */
  async function withDeadline<T>(attempt: (isAbandoned: () => boolean) => Promise<T>, answerBy?: number): Promise<T> {
    const remaining = (answerBy ?? Date.now() + requestTimeout * 1000) - Date.now();
    // The request's bound is spent (it waited for a report slot, say): nothing more is sent.
    if (remaining <= 0) throw new DatabaseStalled(requestTimeout);
    let abandoned = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abandoned = true;
        reject(new DatabaseStalled(requestTimeout));
      }, remaining);
    });
    const running = attempt(() => abandoned);
    running.catch(() => {});
    try {
      return await Promise.race([running, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The whole request raced against its bound; what it awaits inside gets the same moment as `answerBy`. */
  function withinBound<T>(work: (answerBy: number) => Promise<T>): Promise<T> {
    const answerBy = Date.now() + requestTimeout * 1000;
    return withDeadline(() => work(answerBy), answerBy);
  }

  // Named prepared statements live on one server connection; a transaction-mode pooler (PgBouncer, Supavisor)
  // hands each transaction whichever server connection is free, where the statement is missing (26000) or
  // another has its name (42P05). Port 6543 (Supavisor's) and DB_PREPARE=false say so up front; any other
  // pooler is found by its first such failure, after which the pool is rebuilt without them (unprepare).
  let prepare = options.prepare ?? new URL(url).port !== '6543';
  let sql = connect(prepare);
  /** Bumped when the pool is rebuilt: a transaction that began on the old one may be retried on the new. */
  let generation = 0;

  function unprepare() {
    if (!prepare) return;
    prepare = false;
    const old = sql;
    sql = connect(false);
    generation++;
    console.warn(
      '[db] prepared statements off: the database URL is a transaction-mode pooler (set DB_PREPARE=false to say so)',
    );
    // Its transactions still under way fail at once and are retried on the new pool (see transaction).
    old.end({ timeout: 0 }).catch(() => {});
  }

  function connect(prepared: boolean) {
    return postgres(url, {
      max: options.max ?? 8,
      prepare: prepared,
      idle_timeout: 30,
      // While the database is away a request waits at most this long for a connection, then gets a 503.
      connect_timeout: 5,
      // postgres.js waits longer after each failed connection, up to 20 s, before the next attempt, and a
      // request queued behind that wait gets no answer meanwhile; a short cap keeps the 503 prompt during an
      // outage and has the pool serving again within a second of PostgreSQL's return.
      backoff: (failures: number) => Math.min(0.05 * 2 ** failures, 1),
      onnotice: () => {},
      // Money, weights, scores and counts leave as JSON numbers; dates stay `YYYY-MM-DD`.
      types: {
        numeric: { to: 1700, from: [1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
        int8: { to: 20, from: [20], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
        date: { to: 1082, from: [1082], serialize: (x: unknown) => String(x), parse: (x: string) => x },
      },
    });
  }

  /** One request's transaction, with its retries; `isAbandoned` turns a late COMMIT into a ROLLBACK. */
  async function transaction<T>(caller: Caller, work: (tx: Tx) => Promise<T>, isAbandoned: () => boolean): Promise<T> {
    for (let attempt = 1;; attempt++) {
      const pool = generation;
      // Whether COMMIT may have been sent: from then on, a failure leaves the outcome unknown, never retried.
      let committing = false;
      let connectionLost!: (error: unknown) => void;
      const lost = new Promise<never>((_, reject) => (connectionLost = reject));
      try {
        const transaction = sql.begin(async (tx) => {
          // A connection freed only after the request was given up on: do nothing, roll back.
          if (isAbandoned()) throw new Abandoned();
          try {
            // Sent now and not awaited: it is pipelined ahead of the work's first query on the same
            // connection, saving a round trip per request. Should it fail, the work fails with it.
            const identity = tx`select set_config('role', ${caller.role}, true),
                            set_config('request.jwt.claims', ${JSON.stringify(caller.claims)}, true),
                            set_config('statement_timeout', ${statementTimeout}, true),
                            set_config('lock_timeout', ${lockTimeout}, true)`.execute();
            const [, result] = await Promise.all([identity, work(tx)]);
            // The client was answered 503 meanwhile: committing now would apply what it was told failed.
            if (isAbandoned()) throw new Abandoned();
            committing = true;
            return result;
          } catch (error) {
            // A cancelled statement leaves its connection open in a failed transaction: postgres.js must
            // roll it back, or the connection stays idle in that transaction, out of the pool for good.
            if (!connectionGone(error)) throw error;
            // postgres.js answers a failed transaction with a ROLLBACK on the same connection. Once that
            // connection is gone, the ROLLBACK is queued on a connection without a socket and throws from a
            // timer, where nothing can catch it, ending the whole process (porsager/postgres#1154, #1208).
            // So this transaction answers now and its scope never settles: no ROLLBACK is sent, and the
            // server has rolled the transaction back with the session anyway.
            connectionLost(error);
            return new Promise<never>(() => {});
          }
        });
        return (await Promise.race([transaction, lost])) as T;
      } catch (error) {
        const pooled = error instanceof postgres.PostgresError && POOLER_FAILURES.has(error.code);
        if (pooled) unprepare();
        if (attempt < MAX_ATTEMPTS && !isAbandoned()) {
          if (error instanceof postgres.PostgresError && RETRYABLE.has(error.code)) {
            await retryPause(attempt);
            continue;
          }
          // Rolled back by the server (the statement failed, or its connection was closed before COMMIT).
          if (!committing && (pooled || generation !== pool)) continue;
        }
        throw error;
      }
    }
  }

  return {
    get sql() {
      return sql;
    },
    asCaller: (caller, area, work) =>
      withDeadline((isAbandoned) => transaction(caller, work, isAbandoned), caller.answerBy).catch((error) => {
        throw translateDatabaseError(error, area);
      }),
    bounded: (statement, answerBy) => withDeadline(() => statement, answerBy),
    withinBound,
    end: () => sql.end({ timeout: 5 }),
  };
}

export function translateDatabaseError(error: unknown, area: Area): unknown {
  if (error instanceof ApiError) return error;
  if (isUnavailable(error)) {
    const { code, message } = error as Error & { code: string };
    console.error(`[${area.name}] database unavailable: ${code}: ${message}`);
    // Retry after about what a crashed PostgreSQL takes to restart.
    return retryLater(503, 'SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', 5);
  }
  if (error instanceof postgres.PostgresError) {
    // A refusal a SQL function raised (private.raise_api_error), with a code of the catalogue.
    if (/^PT\d{3}$/.test(error.code) && isErrorCode(error.message)) {
      // Its hint is the details as JSON text, or empty (raise_api_error writes it).
      const details = error.hint ? JSON.parse(error.hint) : undefined;
      return new ApiError(Number(error.code.slice(2)), error.message, error.detail ?? error.message, details);
    }
    if (error.code === '55P03') {
      return retryLater(
        409,
        'LOCK_TIMEOUT',
        'Another request is changing the same data; retry shortly',
        LOCK_RETRY_AFTER,
      );
    }
    if (error.code === '42501') {
      return new ApiError(403, area.codes.forbidden, 'You do not have permission for this operation');
    }
    if (error.code.startsWith('22')) {
      // A data exception: a value the request carried that validation let through and PostgreSQL cannot
      // take (bad encoding, a date out of range). The request is at fault; the log says which rule to add.
      console.error(`[${area.name}] data exception: ${error.code}: ${error.message}`);
      return new ApiError(400, area.codes.validation, 'A value in the request cannot be stored or compared', {
        field: null,
        value: null,
        constraint: `a value the database accepts (SQLSTATE ${error.code})`,
        rule: 'storable_value',
      });
    }
    return new DatabaseError(`${error.code}: ${error.message}`);
  }
  if (error instanceof Error && !(error instanceof DatabaseError) && 'code' in error) {
    // Driver-level failures (connection refused, timeouts) carry a `code` but no SQLSTATE.
    return new DatabaseError(`${String((error as { code: unknown }).code)}: ${error.message}`);
  }
  return error;
}

/** The ILIKE pattern of a substring search: the text's own wildcards (`%`, `_`, `\`) are matched literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * A page of rows read with `count(*) over () as total_count`, without that column, and the total it is a
 * page of. Past the last page the window count is gone with the rows, so `count` reads the total then.
 */
export async function pageOf<T>(
  rows: Promise<(T & { total_count: number })[]>,
  page: number,
  count: () => Promise<{ count: number }[]>,
): Promise<{ rows: T[]; totalCount: number }> {
  const counted = await rows;
  const totalCount = counted.length > 0 || page === 1 ? (counted[0]?.total_count ?? 0) : (await count())[0].count;
  return { rows: counted.map(({ total_count: _, ...row }) => row as T), totalCount };
}
