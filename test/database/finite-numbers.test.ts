/**
 * Every stored number is finite. PostgreSQL's numeric (and float) types hold NaN and ±Infinity, and NaN
 * passes `>= 0`: one NaN total poisoned every report until an operator refolded. So every numeric column of
 * `public` and `private`, read from the catalogue (a column added later is covered without anyone
 * remembering to), must refuse NaN, Infinity and -Infinity and accept a finite value. Tried as the table
 * owner with the ordinary triggers off (session_replication_role = replica): what refuses is the column's
 * own constraint, which holds for every role, the owner included.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedStore, scratchDatabase } from '../support/client.ts';

const store = scratchDatabase('finite_numbers');
let sql: postgres.Sql;

/** A row in every table with a numeric column: an order shipped from a lot with a cost, a campaign with spend, folded. */
async function storeWithEveryFigure() {
  await sql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', '{"role":"service_role"}', true)`;
    const [{ customer }] = await tx`
      insert into public.customers (email, name) values ('finite@test.example', 'Finite') returning id as customer`;
    const [{ product }] = await tx`insert into public.products (sku, name) values ('FINITE-1', 'Finite') returning id as product`;
    await tx`select public.stock_in(${product}, 10, 'purchase_order', null, null, null, 'LOT-1', null, 12.5)`;
    const lines = tx.json([{ product_id: product, quantity: 2, unit_price: 40 }]);
    const [{ placed }] = await tx`select public.place_order(${customer}, ${lines}, 'paid') as placed`;
    await tx`select public.update_order_status(${placed.data.id}, 'shipped')`;
    const [{ campaign }] = await tx`
      select id as campaign from public.create_campaign(${
      tx.json({
        name: 'Finite',
        start_date: new Date().toISOString().slice(0, 10),
        end_date: new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10),
        campaign_type: 'brand_week',
        budget: 1000,
      })
    })`;
    await tx`select 1 from public.update_campaign(${campaign}, '{"status":"active"}')`;
    await tx`insert into public.campaign_spend (campaign_id, spend_date, amount)
             values (${campaign}, private.store_today(), 120)`;
  });
  await sql`select private.fold_order_changes(true)`;
  // The change log is emptied by the fold: one more order leaves a row in it.
  const [{ customer }] = await sql`select id as customer from public.customers where email = 'finite@test.example'`;
  await sql`insert into public.orders (customer_id, total_amount) values (${customer}, 5)`;
}

/** Thrown to end a transaction that must leave nothing behind. */
class Rollback extends Error {}

interface NumericColumn {
  table: string;
  column: string;
  is_array: boolean;
}

beforeAll(async () => {
  sql = await migratedStore(store, 1);
  await storeWithEveryFigure();
}, 60_000);

afterAll(() => sql?.end());

describe('no stored number can be NaN or infinite', () => {
  it('every numeric column of public and private refuses NaN, Infinity and -Infinity and takes a finite value', async () => {
    const columns = await sql<NumericColumn[]>`
      select format('%I.%I', n.nspname, c.relname) as table, a.attname as column, t.typcategory = 'A' as is_array
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_type t on t.oid = a.atttypid
      where n.nspname in ('public', 'private') and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
        and a.attgenerated = ''
        and a.atttypid in ('numeric'::regtype, 'float4'::regtype, 'float8'::regtype,
                           'numeric[]'::regtype, 'float4[]'::regtype, 'float8[]'::regtype)
      order by 1, 2`;
    // The catalogue was read, not an empty list: the orders' total is one of them.
    expect(columns).toContainEqual({ table: 'public.orders', column: 'total_amount', is_array: false });

    const accepted: string[] = [];
    const withoutRow: string[] = [];
    for (const { table, column, is_array } of columns) {
      await sql.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        const [row] = await tx.unsafe(`select ctid::text from ${table} limit 1`);
        if (!row) return void withoutRow.push(table);
        const write = (value: string) => {
          const set = is_array
            ? `array_fill('${value}'::numeric, array[greatest(cardinality(${column}), 1)])`
            : `'${value}'`;
          return tx.savepoint((sp) => sp.unsafe(`update ${table} set ${column} = ${set} where ctid = '${row.ctid}'`))
            .then(() => 'stored', (error: postgres.PostgresError) => error.code);
        };
        for (const value of ['NaN', 'Infinity', '-Infinity']) {
          const outcome = await write(value);
          // 23514: the column's CHECK; 22003: a numeric(p, s) column cannot hold an infinite value at all.
          if (!['23514', '22003'].includes(outcome)) accepted.push(`${table}.${column} = ${value}: ${outcome}`);
        }
        expect(await write('1'), `${table}.${column} takes a finite value`).toBe('stored');
        throw new Rollback();
      }).catch((error) => {
        if (!(error instanceof Rollback)) throw error;
      });
    }
    expect(withoutRow, 'tables the fixture gave no row to try (add one to storeWithEveryFigure)').toEqual([]);
    expect(accepted).toEqual([]);
  });
});
