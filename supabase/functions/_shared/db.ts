/**
 * Database access: one transaction per request, in which the caller's role and JWT claims are set the
 * way PostgREST sets them, so RLS policies and `auth.uid()` hold for a function call exactly as for
 * `supabase-js` table access. No named prepared statements, so Supavisor's transaction pooler works.
 *
 * SQL functions report business failures the PostgREST way: SQLSTATE `PTxxx` carries the HTTP status,
 * the message is the error code, `detail` the human message and `hint` a JSON object of details.
 */
import postgres from 'postgres';
import type { Caller } from './auth.ts';
import { ApiError, type Area } from './errors.ts';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

export interface Database {
  sql: Sql;
  /** Runs `work` in one transaction as `caller`; retried whole on a serialization failure or deadlock. */
  asCaller<T>(caller: Caller, area: Area, work: (tx: Tx) => Promise<T>): Promise<T>;
  end(): Promise<void>;
}

/** A database failure that must not reach the client: logged, answered with a bare 500. */
export class DatabaseError extends Error {}

const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 4;

export function createDatabase(url: string, options: { max?: number } = {}): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    prepare: false,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    // Money, weights, scores and counts leave as JSON numbers; dates stay `YYYY-MM-DD`.
    types: {
      numeric: { to: 1700, from: [1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
      int8: { to: 20, from: [20], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
      date: { to: 1082, from: [1082], serialize: (x: unknown) => String(x), parse: (x: string) => x },
    },
  });

  return {
    sql,
    async asCaller(caller, area, work) {
      for (let attempt = 1;; attempt++) {
        try {
          return (await sql.begin(async (tx) => {
            // Sent now and not awaited: it is pipelined ahead of the work's first query on the same
            // connection, saving a round trip per request. Should it fail, the work fails with it.
            const identity = tx`select set_config('role', ${caller.role}, true),
                            set_config('request.jwt.claims', ${JSON.stringify(caller.claims)}, true),
                            set_config('statement_timeout', '15s', true)`.execute();
            const [, result] = await Promise.all([identity, work(tx)]);
            return result;
          })) as Awaited<ReturnType<typeof work>>;
        } catch (error) {
          if (error instanceof postgres.PostgresError && RETRYABLE.has(error.code) && attempt < MAX_ATTEMPTS) continue;
          throw translateDatabaseError(error, area);
        }
      }
    },
    end: () => sql.end({ timeout: 5 }),
  };
}

export function translateDatabaseError(error: unknown, area: Area): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof postgres.PostgresError) {
    if (/^PT\d{3}$/.test(error.code)) {
      let details: Record<string, unknown> | undefined;
      try {
        details = error.hint ? JSON.parse(error.hint) : undefined;
      } catch {
        details = undefined;
      }
      return new ApiError(Number(error.code.slice(2)), error.message, error.detail ?? error.message, details);
    }
    if (error.code === '42501') {
      return new ApiError(403, area.codes.forbidden, 'You do not have permission for this operation');
    }
    return new DatabaseError(`${error.code}: ${error.message}`);
  }
  if (error instanceof Error && !(error instanceof DatabaseError) && 'code' in error) {
    // Driver-level failures (connection refused, timeouts) carry a `code` but no SQLSTATE.
    return new DatabaseError(`${String((error as { code: unknown }).code)}: ${error.message}`);
  }
  return error;
}
