// Idempotency records are honoured for 24 hours (private.claim_idempotency_key) and purged after that:
// by private.purge_idempotency_records(), scheduled with pg_cron where the platform has it, and by one keyed
// stock request in a hundred otherwise (the local PostgreSQL has no pg_cron, so that is what runs here).
import { describe, expect, it } from 'vitest';
import { database, rolledBack, unique } from '../support/client.ts';
import { createProduct } from '../support/inventory.ts';

const sql = database(4);

/** A record of a caller of its own, `age` old. */
async function record(db: typeof sql | Parameters<Parameters<typeof rolledBack>[1]>[0], age: string) {
  const operator = unique('purge-operator');
  await db`
    insert into public.idempotency_records (operator, idempotency_key, operation, request_hash, response, created_at)
    values (${operator}, 'key', 'stock_in', 'hash', '{}', private.now() - ${age}::interval)`;
  return operator;
}

async function exists(db: typeof sql | Parameters<Parameters<typeof rolledBack>[1]>[0], operator: string) {
  return (await db`select 1 from public.idempotency_records where operator = ${operator}`).length === 1;
}

describe('purging idempotency records', () => {
  it('purge_idempotency_records deletes the records older than 24 hours and keeps the recent ones', async () => {
    const old = await record(sql, '24 hours 1 minute');
    const older = await record(sql, '30 days');
    const recent = await record(sql, '23 hours 59 minutes');
    const fresh = await record(sql, '0 seconds');
    const [{ purged }] = await sql`select private.purge_idempotency_records() as purged`;
    expect(purged).toBeGreaterThanOrEqual(2);
    expect(await exists(sql, old)).toBe(false);
    expect(await exists(sql, older)).toBe(false);
    expect(await exists(sql, recent)).toBe(true);
    expect(await exists(sql, fresh)).toBe(true);
  });

  it('a purge skips an expired record another transaction holds instead of waiting for it', async () => {
    const held = await record(sql, '2 days');
    const other = await record(sql, '2 days');
    const holder = await sql.reserve();
    try {
      await holder`begin`;
      await holder`select 1 from public.idempotency_records where operator = ${held} for update`;
      // Waiting would hit the lock timeout and fail the purge.
      await sql.begin(async (tx) => {
        await tx`set local lock_timeout = '2s'`;
        await tx`select private.purge_idempotency_records()`;
      });
      expect(await exists(sql, other)).toBe(false);
      expect(await exists(sql, held)).toBe(true);
      await holder`commit`;
    } finally {
      await holder`rollback`.catch(() => {});
      holder.release();
    }
  });

  it('a keyed stock request purges when its one-in-a-hundred draw comes up, and only then', async () => {
    // Seeds of random() whose first draw is below 0.01 (a purge) and at or above it (none).
    const { purging, sparing } = await sql.begin(async (tx) => {
      await tx`
        create function pg_temp.first_draw(seed float8) returns float8 language plpgsql as $$
        begin
          perform setseed(seed);
          return random();
        end $$`;
      const [seeds] = await tx<{ purging: number; sparing: number }[]>`
        select (select s / 10000.0 from generate_series(0, 9999) s where pg_temp.first_draw(s / 10000.0) < 0.01
                order by s limit 1)::float8 as purging,
               (select s / 10000.0 from generate_series(0, 9999) s where pg_temp.first_draw(s / 10000.0) >= 0.01
                order by s limit 1)::float8 as sparing`;
      await tx`drop function pg_temp.first_draw(float8)`;
      return seeds;
    });
    expect(purging).not.toBeNull();
    const productId = await createProduct(sql);
    for (const [seed, purges] of [[purging, true], [sparing, false]] as const) {
      await rolledBack(sql, async (tx) => {
        const expired = await record(tx, '25 hours');
        await tx`select set_config('request.jwt.claims', '{"role":"service_role"}', true)`;
        await tx`select setseed(${seed}::float8)`;
        await tx`select public.stock_in(${productId}::uuid, 1::bigint, idempotency_key => ${unique('draw')})`;
        expect(await exists(tx, expired), `seed ${seed}`).toBe(!purges);
      });
    }
  });
});
