import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { asRole, call, createUser, database, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID, unique } from '../support/client.ts';
import { createProduct, stockFigures, stockIn } from '../support/inventory.ts';

const sql = database();
const admin = { role: 'authenticated', sub: DEMO_ADMIN_ID } as const;
const customer = { role: 'authenticated', sub: DEMO_CUSTOMER_ID } as const;
const service = { role: 'service_role' } as const;
const anon = { role: 'anon' } as const;

describe('inventory row-level security, in SQL', () => {
  it('signed-in callers read live products; only administrators see deleted ones; anon reads nothing', async () => {
    const live = await createProduct(sql);
    const deleted = await createProduct(sql, { deleted: true });
    const ids = [live, deleted];
    const visible = (caller: typeof admin | typeof customer) =>
      asRole(sql, caller, (tx) => tx`select id from public.products where id = any(${ids})`);
    expect((await visible(customer)).result!.map((row) => row.id)).toEqual([live]);
    expect((await visible(admin)).result!.map((row) => row.id).sort()).toEqual([...ids].sort());
    const anonymous = await asRole(sql, anon, (tx) => tx`select id from public.products`);
    expect(anonymous.error?.code).toBe('42501');
  });

  it("a customer sees the lots, stock-ins and movements they made, not other people's; an admin sees all", async () => {
    const productId = await createProduct(sql);
    const someone = await createUser(sql);
    await call('stock-in', { method: 'POST', token: someone.token, body: { product_id: productId, quantity: 1 } });
    await stockIn(productId, 2);
    const counts = (caller: { role: 'authenticated'; sub: string }) =>
      asRole(sql, caller, async (tx) => {
        const [row] = await tx`
          select (select count(*)::int from public.inventory_records where product_id = ${productId}) as lots,
                 (select count(*)::int from public.stock_in_history where product_id = ${productId}) as stock_ins,
                 (select count(*)::int from public.stock_movements where product_id = ${productId}) as movements`;
        return row;
      });
    expect((await counts({ role: 'authenticated', sub: someone.id })).result).toEqual({
      lots: 1,
      stock_ins: 1,
      movements: 1,
    });
    expect((await counts(customer)).result).toEqual({ lots: 0, stock_ins: 0, movements: 0 });
    expect((await counts(admin)).result).toEqual({ lots: 2, stock_ins: 2, movements: 2 });
  });

  it('only administrators add and edit products, nobody deletes one, and nobody writes current_stock', async () => {
    const productId = await createProduct(sql);
    const add = (caller: typeof admin | typeof customer) =>
      asRole(
        sql,
        caller,
        (tx) => tx`insert into public.products (sku, name) values (${unique('RLS')}, 'x') returning id`,
      );
    expect((await add(admin)).result).toHaveLength(1);
    expect((await add(customer)).error?.code).toBe('42501');

    const rename = await asRole(
      sql,
      customer,
      (tx) => tx`update public.products set name = 'y' where id = ${productId} returning id`,
    );
    expect(rename.result).toHaveLength(0);
    const softDelete = await asRole(
      sql,
      admin,
      (tx) => tx`update public.products set deleted_at = private.now() where id = ${productId} returning id`,
    );
    expect(softDelete.result).toHaveLength(1);
    for (const caller of [admin, service]) {
      const remove = await asRole(sql, caller, (tx) => tx`delete from public.products where id = ${productId}`);
      expect(remove.error?.code).toBe('42501');
      const stock = await asRole(
        sql,
        caller,
        (tx) => tx`update public.products set current_stock = 1000 where id = ${productId}`,
      );
      expect(stock.error?.code).toBe('42501');
    }
  });

  it('no API role, not even the service role, can write lots or rewrite the ledger and history', async () => {
    const productId = await createProduct(sql);
    const lot = await stockIn(productId, 5);
    const attempts = [
      (tx: any) => tx`update public.inventory_records set available_quantity = 500 where id = ${lot}`,
      (tx: any) => tx`delete from public.inventory_records where id = ${lot}`,
      (tx: any) =>
        tx`insert into public.inventory_records (product_id, quantity, available_quantity, source, created_by_role)
                      values (${productId}, 1, 1, 'other', 'service_role')`,
      (tx: any) => tx`update public.stock_movements set delta = 500 where product_id = ${productId}`,
      (tx: any) => tx`delete from public.stock_movements where product_id = ${productId}`,
      (tx: any) => tx`truncate public.stock_movements`,
      (tx: any) => tx`update public.stock_in_history set quantity = 500 where product_id = ${productId}`,
      (tx: any) => tx`delete from public.idempotency_records`,
    ];
    for (const caller of [admin, service]) {
      for (const attempt of attempts) expect((await asRole(sql, caller, attempt)).error?.code).toBe('42501');
    }
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 5, sum_available: 5, sum_deltas: 5 });
  });

  it('constraints refuse negative stock even from the table owner', async () => {
    const productId = await createProduct(sql);
    const lot = await stockIn(productId, 5);
    for (
      const statement of [
        sql`update public.inventory_records set available_quantity = -1 where id = ${lot}`,
        sql`update public.inventory_records set available_quantity = 6 where id = ${lot}`,
        sql`update public.products set current_stock = -1 where id = ${productId}`,
      ]
    ) {
      await expect(statement).rejects.toMatchObject({ code: '23514' });
    }
  });
});

describe('the stock functions through supabase.rpc, in SQL', () => {
  it('apply the same rules and record the operator from the JWT claims', async () => {
    const productId = await createProduct(sql);
    const { result } = await asRole(sql, customer, async (tx) => {
      const [{ response }] = await tx`select public.stock_in(product_id => ${productId}, quantity => 4) as response`;
      const [lot] =
        await tx`select created_by, created_by_role from public.inventory_records where id = ${response.inventory_id}`;
      return { response, lot };
    });
    expect(result!.response).toMatchObject({ success: true, quantity: 4, current_stock: 4 });
    expect(result!.lot).toEqual({ created_by: DEMO_CUSTOMER_ID, created_by_role: 'authenticated' });

    const refusals: [string, (tx: any) => Promise<unknown>, string][] = [
      [
        'PT400',
        (tx) =>
          tx`select public.stock_adjust(product_id => ${productId}, adjust_quantity => 0, reason => 'other', reason_note => 'x')`,
        'VALIDATION_ERROR',
      ],
      [
        'PT422',
        (tx) =>
          tx`select public.stock_adjust(product_id => ${productId}, adjust_quantity => -1, reason => 'damage_writeoff')`,
        'NO_INVENTORY_RECORD',
      ],
      ['PT422', (tx) => tx`select public.stock_out(product_id => ${productId}, quantity => 1)`, 'INSUFFICIENT_STOCK'],
      [
        'PT404',
        (tx) => tx`select public.stock_in(product_id => gen_random_uuid(), quantity => 1)`,
        'PRODUCT_NOT_FOUND',
      ],
      [
        'PT404',
        (tx) =>
          tx`select public.stock_adjust(inventory_id => gen_random_uuid(), adjust_quantity => -1, reason => 'loss_theft')`,
        'INVENTORY_RECORD_NOT_FOUND',
      ],
    ];
    for (const [code, statement, message] of refusals) {
      const { error } = await asRole(sql, service, statement);
      expect(error, message).toMatchObject({ code, message });
    }
  });

  it('refuse the anonymous role and a claim set without a user', async () => {
    const productId = await createProduct(sql);
    const anonymous = await asRole(
      sql,
      anon,
      (tx) => tx`select public.stock_in(product_id => ${productId}, quantity => 1)`,
    );
    expect(anonymous.error?.code).toBe('42501');
    const userless = await asRole(
      sql,
      { role: 'authenticated' },
      (tx) => tx`select public.stock_in(product_id => ${productId}, quantity => 1)`,
    );
    expect(userless.error).toMatchObject({ code: 'PT401', message: 'UNAUTHORIZED' });
  });

  it('keep their building blocks out of reach of API roles', async () => {
    const productId = await createProduct(sql);
    const direct = await asRole(sql, admin, (tx) => tx`select private.lock_product(${productId})`);
    expect(direct.error?.code).toBe('42501');
  });
});

describe('real time', () => {
  it('every inventory table is in the supabase_realtime publication, the idempotency records are not', async () => {
    const rows =
      await sql`select tablename from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public'`;
    const tables = rows.map((row) => row.tablename);
    expect(tables).toEqual(
      expect.arrayContaining(['products', 'inventory_records', 'stock_in_history', 'stock_movements']),
    );
    expect(tables).not.toContain('idempotency_records');
  });

  it('a logical decoding slot on supabase_realtime carries the stock change of a stock-in', async () => {
    const slot = unique('inventory_slot');
    const productId = await createProduct(sql);
    await sql`select pg_create_logical_replication_slot(${slot}, 'pgoutput')`;
    try {
      const res = await call('stock-in', { method: 'POST', body: { product_id: productId, quantity: 9 } });
      expect(res.status).toBe(201);
      // Decoding reads only flushed WAL and the test server commits asynchronously: a synchronous commit
      // that writes WAL (a transactional logical message) flushes everything before it.
      await sql.begin(async (tx) => {
        await tx`set local synchronous_commit = on`;
        await tx`select pg_logical_emit_message(true, 'inventory-test', 'flush')`;
      });
      const [{ stream }] = await sql`
        select coalesce(string_agg(encode(data, 'escape'), ''), '') as stream
        from pg_logical_slot_peek_binary_changes(${slot}, null, null,
          'proto_version', '1', 'publication_names', 'supabase_realtime')`;
      for (const expected of ['inventory_records', 'stock_movements', 'products', res.body.inventory_id, productId]) {
        expect(stream).toContain(expected);
      }
    } finally {
      await sql`select pg_drop_replication_slot(${slot})`;
    }
  });
});

describe('demo seed', () => {
  it('has 20 to 50 products, several with more than one lot, each with lots, ledger and stock in agreement', async () => {
    const seedFile = await readFile(new URL('../../supabase/seeds/02-inventory.sql', import.meta.url), 'utf8');
    const skus = [...seedFile.matchAll(/^\s*\('([A-Z0-9-]+)', '[^']+', (?:true|false)\)/gm)].map((match) => match[1]);
    expect(skus.length).toBeGreaterThanOrEqual(20);
    expect(skus.length).toBeLessThanOrEqual(50);
    const seeded = await sql`
      select p.id, count(r.id)::int as lots
      from public.products p left join public.inventory_records r on r.product_id = p.id
      where p.sku = any(${skus})
      group by p.id`;
    expect(seeded).toHaveLength(skus.length);
    expect(seeded.filter((row) => row.lots > 1).length).toBeGreaterThanOrEqual(5);
    for (const { id } of seeded) {
      const figures = await stockFigures(sql, id);
      expect(figures.sum_available).toBe(figures.current_stock);
      expect(figures.sum_deltas).toBe(figures.current_stock);
    }
  });
});
