// Products in SQL: the list view under each caller's RLS (what a supabase-js caller reads hosted), the write
// functions as supabase.rpc reaches them, the reorder-level rule, and the inactive-product rule of stock-in
// under the product lock.
import { describe, expect, it } from 'vitest';
import { asRole, call, database, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID, tokens, unique } from '../support/client.ts';
import { createProduct, stockFigures, stockIn } from '../support/inventory.ts';

const sql = database(6);
const admin = { role: 'authenticated', sub: DEMO_ADMIN_ID } as const;
const customer = { role: 'authenticated', sub: DEMO_CUSTOMER_ID } as const;
const service = { role: 'service_role' } as const;
const anon = { role: 'anon' } as const;

const sku = () => unique('RPC').toUpperCase();

describe('public.product_stock, the list both paths read', () => {
  it('a customer reading the view sees the rows GET /products shows them: live products only', async () => {
    const live = await createProduct(sql);
    const deleted = await createProduct(sql, { deleted: true });
    const ids = [live, deleted];
    const viewed = async (caller: typeof admin | typeof customer) =>
      (await asRole(sql, caller, (tx) => tx`select id from public.product_stock where id = any(${ids}) order by id`))
        .result!.map((row) => row.id);
    expect(await viewed(customer)).toEqual([live]);
    expect(await viewed(admin)).toEqual([...ids].sort());

    for (const [token, caller] of [[tokens.customer, customer], [tokens.admin, admin]] as const) {
      const over = await Promise.all(ids.map((id) => call(`products/${id}`, { token })));
      const seen = over.filter((res) => res.status === 200).map((res) => res.body.data.id).sort();
      expect(seen).toEqual(await viewed(caller));
    }
    const anonymous = await asRole(sql, anon, (tx) => tx`select id from public.product_stock limit 1`);
    expect(anonymous.error?.code).toBe('42501');
  });

  it('low_stock is current_stock at or below reorder_level, and follows a change of either', async () => {
    const id = await createProduct(sql);
    const low = async () => (await sql`select low_stock from public.product_stock where id = ${id}`)[0].low_stock;
    expect(await low()).toBe(true);
    await stockIn(id, 11);
    expect(await low()).toBe(false);
    await sql`update public.products set reorder_level = 11 where id = ${id}`;
    expect(await low()).toBe(true);
  });

  it('nobody writes through the view', async () => {
    const id = await createProduct(sql);
    for (const caller of [admin, service]) {
      const { error } = await asRole(sql, caller, (tx) => tx`update public.product_stock set name = 'x' where id = ${id}`);
      expect(error?.code, caller.role).toBe('42501');
    }
  });

  it('reorder_level holds 0 to 1000000000 whoever writes, the table owner included', async () => {
    // The rule's bound, written out for the CHECK's sake, is the stock limit the API and the console read.
    const [bound] = await sql`select private.is_reorder_level(private.max_stock_quantity()) as at,
                                     private.is_reorder_level(private.max_stock_quantity() + 1) as past`;
    expect(bound).toEqual({ at: true, past: false });
    const id = await createProduct(sql);
    for (const level of [-1, 1_000_000_001]) {
      await expect(sql`update public.products set reorder_level = ${level} where id = ${id}`).rejects.toMatchObject({
        code: '23514',
        constraint_name: 'products_reorder_level_range',
      });
    }
  });
});

describe('the product write functions through supabase.rpc', () => {
  it('a customer cannot create a product: PT403 FORBIDDEN', async () => {
    const { error } = await asRole(sql, customer, (tx) => tx`select public.create_product(${tx.json({ sku: sku(), name: 'x' })})`);
    expect(error).toMatchObject({ code: 'PT403', message: 'FORBIDDEN' });
    const update = await asRole(sql, customer, (tx) => tx`select public.update_product(gen_random_uuid(), '{"name":"x"}')`);
    expect(update.error?.code).toBe('PT403');
    const remove = await asRole(sql, customer, (tx) => tx`select public.delete_product(gen_random_uuid())`);
    expect(remove.error?.code).toBe('PT403');
  });

  it('anon cannot execute the write functions at all', async () => {
    const { error } = await asRole(sql, anon, (tx) => tx`select public.create_product(${tx.json({ sku: sku(), name: 'x' })})`);
    expect(error?.code).toBe('42501');
  });

  it('an administrator and the service role create, update and delete; the row is what they asked for', async () => {
    for (const caller of [admin, service]) {
      const code = sku();
      const { result, error } = await asRole(sql, caller, async (tx) => {
        const [created] = await tx`select * from public.create_product(${tx.json({ sku: code, name: ' Kettle ', reorder_level: 2 })})`;
        const [updated] = await tx`select * from public.update_product(${created.id}, '{"is_active": false, "reorder_level": 3.0}')`;
        const [deleted] = await tx`select * from public.delete_product(${created.id})`;
        return { created, updated, deleted };
      });
      expect(error, caller.role).toBeUndefined();
      expect(result!.created).toMatchObject({ sku: code, name: 'Kettle', is_active: true, reorder_level: 2 });
      expect(result!.updated).toMatchObject({ is_active: false, reorder_level: 3 });
      expect(result!.deleted.deleted_at).toBeInstanceOf(Date);
    }
  });

  it.each([
    ['a missing name', { sku: 'OK-1' }, 'name'],
    ['an unknown field', { sku: 'OK-2', name: 'x', current_stock: 5 }, 'current_stock'],
    ['a malformed SKU', { sku: 'no spaces', name: 'x' }, 'sku'],
    ['a name of 201 characters', { sku: 'OK-3', name: 'n'.repeat(201) }, 'name'],
    ['a reorder level as a string', { sku: 'OK-4', name: 'x', reorder_level: '5' }, 'reorder_level'],
    ['a fractional reorder level', { sku: 'OK-5', name: 'x', reorder_level: 2.5 }, 'reorder_level'],
    ['is_active null', { sku: 'OK-6', name: 'x', is_active: null }, 'is_active'],
  ])('create_product refuses %s with PT400 VALIDATION_ERROR naming the field', async (_, product, field) => {
    const { error } = await asRole(sql, admin, (tx) => tx`select public.create_product(${tx.json(product as never)})`);
    expect(error).toMatchObject({ code: 'PT400', message: 'VALIDATION_ERROR' });
    expect(JSON.parse(error!.hint!)).toMatchObject({ field });
  });

  it('a duplicate SKU is PT409 DUPLICATE_SKU naming the product that holds it', async () => {
    const code = sku();
    const [{ id }] = await sql`insert into public.products (sku, name) values (${code}, 'first') returning id`;
    const { error } = await asRole(sql, service, (tx) => tx`select public.create_product(${tx.json({ sku: code, name: 'again' })})`);
    expect(error).toMatchObject({ code: 'PT409', message: 'DUPLICATE_SKU' });
    expect(JSON.parse(error!.hint!)).toEqual({ sku: code, product_id: id });
  });
});

describe('an inactive product takes no stock-in', () => {
  it('through rpc too: PT422 PRODUCT_INACTIVE, and no lot, history or ledger row is written', async () => {
    const id = await createProduct(sql);
    await sql`update public.products set is_active = false where id = ${id}`;
    const { error } = await asRole(sql, service, (tx) => tx`select public.stock_in(${id}::uuid, 5::bigint)`);
    expect(error).toMatchObject({ code: 'PT422', message: 'PRODUCT_INACTIVE' });
    expect(await stockFigures(sql, id)).toEqual({ current_stock: 0, sum_available: 0, sum_deltas: 0 });
    expect(await sql`select 1 from public.stock_in_history where product_id = ${id}`).toHaveLength(0);
  });

  it('a stock-in waiting on the product lock while the product is deactivated is refused once the lock is free', async () => {
    const id = await createProduct(sql);
    const holder = await sql.reserve();
    const claims = JSON.stringify({ role: 'service_role' });
    try {
      await holder`begin`;
      await holder`select set_config('role', 'service_role', true), set_config('request.jwt.claims', ${claims}, true)`;
      await holder`select public.update_product(${id}::uuid, '{"is_active": false}')`;
      let settled = false;
      const waiting = sql.begin(async (tx) => {
        await tx`select set_config('application_name', ${`stock-in ${id}`}, true),
                        set_config('role', 'service_role', true), set_config('request.jwt.claims', ${claims}, true)`;
        return tx`select public.stock_in(${id}::uuid, 5::bigint)`;
      }).then(() => undefined, (error) => error).finally(() => (settled = true));
      // Until the stock-in waits on the product row lock the deactivation holds (or, should the lock be
      // gone, has already finished: the assertion below then fails).
      while (!settled) {
        const [{ blocked }] = await sql`
          select exists (select 1 from pg_stat_activity
                         where application_name = ${`stock-in ${id}`} and wait_event_type = 'Lock') as blocked`;
        if (blocked) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await holder`commit`;
      expect(await waiting).toMatchObject({ code: 'PT422', message: 'PRODUCT_INACTIVE' });
    } finally {
      await holder`rollback`.catch(() => {});
      holder.release();
    }
    expect((await stockFigures(sql, id)).current_stock).toBe(0);
  });
});

describe('a product’s field rules, written once in the database', () => {
  it('the figures the edge function and the console read (products/fields.ts) are the database’s, at each edge', async () => {
    const { MAX_NAME_LENGTH, MAX_REORDER_LEVEL, MAX_SKU_LENGTH, SKU_PATTERN } = await import(
      '../../supabase/functions/products/fields.ts'
    );
    const skus = ['A'.repeat(MAX_SKU_LENGTH), 'A'.repeat(MAX_SKU_LENGTH + 1), 'a.b_c-1', '-A', 'A B', '.A', 'Ä'];
    const names = ['x', ' ', '', 'n'.repeat(MAX_NAME_LENGTH), ` ${'n'.repeat(MAX_NAME_LENGTH)} `, 'n'.repeat(MAX_NAME_LENGTH + 1)];
    const levels = [0, -1, MAX_REORDER_LEVEL, MAX_REORDER_LEVEL + 1, 1.5];
    const [database] = await sql`
      select array(select private.is_product_sku(s) from unnest(${skus}::text[]) s) as skus,
             array(select private.is_product_name(n) from unnest(${names}::text[]) n) as names,
             array(select private.is_reorder_level(l) from unnest(${levels}::numeric[]) l) as levels`;
    expect(database).toEqual({
      skus: skus.map((s) => SKU_PATTERN.test(s) && s.length <= MAX_SKU_LENGTH),
      names: names.map((n) => n.trim().length >= 1 && n.trim().length <= MAX_NAME_LENGTH),
      levels: levels.map((l) => Number.isInteger(l) && l >= 0 && l <= MAX_REORDER_LEVEL),
    });
  });
});
