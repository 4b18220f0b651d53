// The products function over HTTP: the list with current stock, one product with its lots, its ledger and
// stock-in history, and the writes (administrators and the service key only). Every answer is also held to
// the function's OpenAPI document by call(). Products are scoped by a unique token in their names, since
// other files add products to the same database at the same time.
import { describe, expect, it } from 'vitest';
import { asRole, call, createUser, database, tokens, unique } from '../support/client.ts';
import { createProduct, stockFigures, stockIn } from '../support/inventory.ts';

const sql = database();
const UNKNOWN_ID = '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11';
const API_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Creates a product over HTTP as an administrator; `token` names the group it belongs to. */
async function product(token: string, fields: Record<string, unknown> = {}) {
  const res = await call('products', {
    method: 'POST',
    body: { sku: unique('P').toUpperCase(), name: `${token} product`, ...fields },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; sku: string; name: string };
}

function list(query: Record<string, string>, token = tokens.admin) {
  return call(`products?${new URLSearchParams(query)}`, { token });
}

const skus = (res: { body: { data: { sku: string }[] } }) => res.body.data.map((row) => row.sku);

function stock(path: string, body: Record<string, unknown>, token = tokens.admin) {
  return call(path, { method: 'POST', token, body });
}

describe('GET /products', () => {
  it("the product list's stock equals the sum of its lots, after stock-in, stock-out and adjustment", async () => {
    const group = unique('sum');
    const { id } = await product(group);
    await stockIn(id, 7, 3);
    await stockIn(id, 5, 1);
    expect((await stock('stock-out', { product_id: id, quantity: 9 })).status).toBe(200);
    expect((await stock('stock-adjust', { product_id: id, adjust_quantity: 2, reason: 'miscount_correction' })).status)
      .toBe(200);
    const listed = await list({ search: group });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    const one = await call(`products/${id}`);
    const lots = one.body.data.lots as { available_quantity: number }[];
    expect(listed.body.data[0].current_stock).toBe(lots.reduce((sum, lot) => sum + lot.available_quantity, 0));
    expect(listed.body.data[0].current_stock).toBe(5);
    expect(await stockFigures(sql, id)).toEqual({ current_stock: 5, sum_available: 5, sum_deltas: 5 });
  });

  it('search matches part of the SKU or of the name, ignoring case, and takes % and _ literally', async () => {
    const group = unique('search');
    const bySku = await product(group, { sku: `${group.toUpperCase()}-X`, name: 'Plain name' });
    const byName = await product(group, { name: `Mug for ${group}` });
    expect(skus(await list({ search: group.toUpperCase(), sort_by: 'name' })).sort()).toEqual(
      [bySku.sku, byName.sku].sort(),
    );
    expect(skus(await list({ search: `mug for ${group}` }))).toEqual([byName.sku]);
    // Unescaped, `%` would match anything and `_` any one character: both searches would find the group.
    expect(skus(await list({ search: group.replace('_', '%') }))).toEqual([]);
    expect(skus(await list({ search: `${group.slice(0, -1)}_` }))).toEqual([]);
  });

  it('a search lists the product whose SKU it is first, however many others contain it and sort before it', async () => {
    const group = unique('exact').toUpperCase();
    const exact = await product(group, { sku: group });
    // Eleven SKUs that contain the exact one and sort before it: a first page of ten once missed it.
    for (let i = 0; i < 11; i++) await product(group, { sku: `A${i}-${group}` });
    const found = await list({ search: group.toLowerCase(), per_page: '10' });
    expect(found.body.pagination.total_count).toBe(12);
    expect(skus(found)[0]).toBe(exact.sku);
    expect(skus(await list({ search: group, per_page: '10', sort_by: 'sku' }))).not.toContain(exact.sku);
  });

  it('low_stock=true lists the products at or below their reorder level, low_stock=false the others', async () => {
    const group = unique('low');
    const atLevel = await product(group, { reorder_level: 5 });
    const above = await product(group, { reorder_level: 5 });
    const empty = await product(group);
    const zeroLevel = await product(group, { reorder_level: 0 });
    await stockIn(atLevel.id, 5);
    await stockIn(above.id, 6);
    await stockIn(zeroLevel.id, 1);
    const low = await list({ search: group, low_stock: 'true' });
    expect(skus(low).sort()).toEqual([atLevel.sku, empty.sku].sort());
    expect(low.body.data.every((row: { low_stock: boolean }) => row.low_stock)).toBe(true);
    expect(skus(await list({ search: group, low_stock: 'false' })).sort()).toEqual([above.sku, zeroLevel.sku].sort());
    const [emptyRow] = (await list({ search: empty.sku })).body.data;
    expect(emptyRow).toMatchObject({ current_stock: 0, reorder_level: 10, low_stock: true });
  });

  it('names and SKUs sort as people read them (2 before 10), and the low-stock list comes most urgent first', async () => {
    const group = unique('natural');
    for (const n of [10, 2, 1, 11]) await product(group, { sku: `${group.toUpperCase()}-${n}`, name: `${group} item ${n}` });
    const byName = await list({ search: group, sort_by: 'name' });
    expect(byName.body.data.map((row: { name: string }) => row.name)).toEqual([1, 2, 10, 11].map((n) => `${group} item ${n}`));
    expect(skus(await list({ search: group }))).toEqual([1, 2, 10, 11].map((n) => `${group.toUpperCase()}-${n}`));

    const low = unique('urgent');
    const short3 = await product(low, { reorder_level: 5 });
    const short10 = await product(low, { reorder_level: 10 });
    const short1 = await product(low, { reorder_level: 4 });
    await stockIn(short3.id, 2);
    await stockIn(short1.id, 3);
    expect(skus(await list({ search: low, low_stock: 'true' }))).toEqual([short10.sku, short3.sku, short1.sku]);
  });

  it('is_active filters active or inactive products; without it both are listed', async () => {
    const group = unique('active');
    const active = await product(group);
    const inactive = await product(group, { is_active: false });
    expect(skus(await list({ search: group, is_active: 'false' }))).toEqual([inactive.sku]);
    expect(skus(await list({ search: group, is_active: 'true' }))).toEqual([active.sku]);
    expect(skus(await list({ search: group })).sort()).toEqual([active.sku, inactive.sku].sort());
  });

  it('deleted products are listed only with include_deleted=true, and never to a customer', async () => {
    const group = unique('deleted');
    const live = await product(group);
    const gone = await product(group);
    expect((await call(`products/${gone.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(skus(await list({ search: group }))).toEqual([live.sku]);
    const withDeleted = await list({ search: group, include_deleted: 'true' });
    expect(skus(withDeleted).sort()).toEqual([live.sku, gone.sku].sort());
    const deletedRow = withDeleted.body.data.find((row: { sku: string }) => row.sku === gone.sku);
    expect(deletedRow.deleted_at).toMatch(API_INSTANT);
    expect(deletedRow.is_active).toBe(false);
    expect(skus(await list({ search: group, include_deleted: 'true' }, tokens.customer))).toEqual([live.sku]);
  });

  it('pages and sorts like the catalogue: page, per_page, sort_by, sort_order, and the total past the last page', async () => {
    const group = unique('paged');
    const made = [];
    for (const quantity of [3, 1, 2]) {
      const p = await product(group);
      await stockIn(p.id, quantity);
      made.push({ ...p, quantity });
    }
    const byStockDesc = [...made].sort((a, b) => b.quantity - a.quantity).map((p) => p.sku);
    const first = await list({ search: group, sort_by: 'current_stock', sort_order: 'desc', per_page: '2' });
    expect(skus(first)).toEqual(byStockDesc.slice(0, 2));
    expect(first.body.count).toBe(2);
    expect(first.body.pagination).toEqual({ page: 1, per_page: 2, total_count: 3, total_pages: 2 });
    const second = await list({ search: group, sort_by: 'current_stock', sort_order: 'desc', per_page: '2', page: '2' });
    expect(skus(second)).toEqual(byStockDesc.slice(2));
    const past = await list({ search: group, per_page: '2', page: '5' });
    expect(past.body).toMatchObject({ data: [], count: 0, pagination: { page: 5, total_count: 3, total_pages: 2 } });
    // Without sort_by: by SKU, in natural order.
    expect(skus(await list({ search: group }))).toEqual(made.map((p) => p.sku).sort(new Intl.Collator('en', { numeric: true }).compare));
  });

  it.each([
    ['sort_order without sort_by', { sort_order: 'desc' }, 'sort_order'],
    ['an unknown sort column', { sort_by: 'price' }, 'sort_by'],
    ['per_page above 200', { per_page: '201' }, 'per_page'],
    ['page 0', { page: '0' }, 'page'],
    ['low_stock not a boolean', { low_stock: 'yes' }, 'low_stock'],
    ['an unknown parameter', { colour: 'red' }, 'colour'],
  ])('refuses %s with 400 VALIDATION_ERROR naming the parameter', async (_, query, field) => {
    const res = await list(query as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', details: { field } });
  });

  it('the anonymous key and no token get 401', async () => {
    expect((await call('products', { token: tokens.anon })).status).toBe(401);
    expect((await call('products', { token: null })).status).toBe(401);
  });
});

describe('GET /products/:id', () => {
  it('gives the product with its lots in FIFO drawing order: received, available, received_at, source', async () => {
    const { id } = await product(unique('lots'));
    const newer = await stockIn(id, 4, 1);
    const older = await stockIn(id, 6, 10);
    await stock('stock-out', { product_id: id, quantity: 2 });
    const res = await call(`products/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, current_stock: 8, is_active: true, low_stock: true });
    expect(res.body.data.lots).toEqual([
      expect.objectContaining({ inventory_id: older, quantity: 6, available_quantity: 4, source: 'manual_stock_in' }),
      expect.objectContaining({ inventory_id: newer, quantity: 4, available_quantity: 4, source: 'manual_stock_in' }),
    ]);
    for (const lot of res.body.data.lots) expect(lot.received_at).toMatch(API_INSTANT);
  });

  it('gives a product set to fefo its lots in the order a sale draws them: first to expire first, those without an expiry last', async () => {
    const { id } = await product(unique('fefo'), { allocation: 'fefo' });
    const lot = async (daysAgo: number, expires_on?: string) => {
      const res = await call('stock-in', {
        method: 'POST',
        body: { product_id: id, quantity: 1, received_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString(), expires_on },
      });
      expect(res.status, res.text).toBe(201);
      return res.body.inventory_id as string;
    };
    const undated = await lot(30);
    const late = await lot(20, '2099-12-31');
    const soon = await lot(1, '2099-01-31');
    const res = await call(`products/${id}`);
    expect(res.body.data.lots.map((l: { inventory_id: string }) => l.inventory_id)).toEqual([soon, late, undated]);
  });

  it('an unknown product is 404 PRODUCT_NOT_FOUND; a malformed id is 400', async () => {
    for (const path of [`products/${UNKNOWN_ID}`, `products/${UNKNOWN_ID}/movements`, `products/${UNKNOWN_ID}/stock-ins`]) {
      const res = await call(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'PRODUCT_NOT_FOUND', details: { product_id: UNKNOWN_ID } });
    }
    const malformed = await call('products/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.body.details).toMatchObject({ field: 'id' });
  });

  it('a customer sees the current stock but only the lots, movements and stock-ins they made themselves', async () => {
    const { id } = await product(unique('rls'));
    const someone = await createUser(sql);
    expect((await stock('stock-in', { product_id: id, quantity: 2 }, someone.token)).status).toBe(201);
    await stockIn(id, 3);
    const asUser = await call(`products/${id}`, { token: someone.token });
    expect(asUser.body.data.current_stock).toBe(5);
    expect(asUser.body.data.lots.map((lot: { quantity: number }) => lot.quantity)).toEqual([2]);
    const movements = await call(`products/${id}/movements`, { token: someone.token });
    expect(movements.body.data.map((m: { operator_id: string }) => m.operator_id)).toEqual([someone.id]);
    const stockIns = await call(`products/${id}/stock-ins`, { token: someone.token });
    expect(stockIns.body.pagination.total_count).toBe(1);
    expect((await call(`products/${id}`)).body.data.lots).toHaveLength(2);
  });

  it('a deleted product is 404 to a customer, and still readable by an administrator', async () => {
    const productId = await createProduct(sql, { deleted: true });
    expect((await call(`products/${productId}`, { token: tokens.customer })).status).toBe(404);
    expect((await call(`products/${productId}/movements`, { token: tokens.customer })).status).toBe(404);
    const asAdmin = await call(`products/${productId}`);
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.data.deleted_at).toMatch(API_INSTANT);
  });
});

describe('GET /products/:id/movements and /stock-ins', () => {
  it('the ledger comes newest first with who, why, delta and the stock before and after', async () => {
    const { id } = await product(unique('ledger'));
    await stockIn(id, 10);
    await stock('stock-out', { product_id: id, quantity: 3, reference: 'ORDER-1' });
    await stock(
      'stock-adjust',
      { product_id: id, adjust_quantity: -1, reason: 'damage_writeoff', reason_note: 'dropped' },
      tokens.service,
    );
    const res = await call(`products/${id}/movements`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: { operation: string }) => m.operation)).toEqual(['stock_adjust', 'stock_out', 'stock_in']);
    const [adjust, out, received] = res.body.data;
    expect(adjust).toMatchObject({
      delta: -1,
      stock_before: 7,
      stock_after: 6,
      reason: 'damage_writeoff',
      reason_note: 'dropped',
      operator_id: null,
      operator_role: 'service_role',
    });
    expect(out).toMatchObject({ delta: -3, stock_before: 10, stock_after: 7, reference: 'ORDER-1', operator_role: 'authenticated' });
    expect(received).toMatchObject({ delta: 10, stock_before: 0, stock_after: 10, source: 'manual_stock_in' });
    expect(out.operator_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.data[0].created_at).toMatch(API_INSTANT);

    const paged = await call(`products/${id}/movements?per_page=1&page=2`);
    expect(paged.body.data.map((m: { id: number }) => m.id)).toEqual([out.id]);
    expect(paged.body.pagination).toEqual({ page: 2, per_page: 1, total_count: 3, total_pages: 3 });
    const outs = await call(`products/${id}/movements?operation=stock_out`);
    expect(outs.body.data.map((m: { id: number }) => m.id)).toEqual([out.id]);
  });

  it("the ledger names its operator by email to an administrator and to the operator, never to another user", async () => {
    const { id } = await product(unique('operator'));
    const operator = await createUser(sql);
    expect((await stock('stock-in', { product_id: id, quantity: 4 }, operator.token)).status).toBe(201);
    expect((await stock('stock-in', { product_id: id, quantity: 1 }, tokens.service)).status).toBe(201);
    const email = `${operator.id}@example.com`;
    const emails = (res: { body: { data: { operator_email: string | null }[] } }) =>
      res.body.data.map((row) => row.operator_email);
    expect(emails(await call(`products/${id}/movements`))).toEqual([null, email]);
    expect(emails(await call(`products/${id}/stock-ins`))).toEqual([null, email]);
    expect(emails(await call(`products/${id}/movements`, { token: operator.token }))).toEqual([email]);
    const other = await createUser(sql);
    const { result } = await asRole(sql, { role: 'authenticated', sub: other.id }, (tx) =>
      tx`select private.operator_email(${operator.id}::uuid) as email`);
    expect(result).toEqual([{ email: null }]);
  });

  it('the stock-in history comes newest recorded first, paged, with its lot, source and operator', async () => {
    const { id } = await product(unique('history'));
    const first = await stockIn(id, 1, 5);
    const second = await stockIn(id, 2, 9);
    const res = await call(`products/${id}/stock-ins?per_page=1`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({ inventory_id: second, quantity: 2, source: 'manual_stock_in', operator_role: 'authenticated' }),
    ]);
    expect(res.body.pagination).toEqual({ page: 1, per_page: 1, total_count: 2, total_pages: 2 });
    const next = await call(`products/${id}/stock-ins?per_page=1&page=2`);
    expect(next.body.data.map((row: { inventory_id: string }) => row.inventory_id)).toEqual([first]);
  });
});

describe('POST, PUT and DELETE /products', () => {
  it('an administrator creates a product: 201, active, reorder level 10, no stock, trimmed name', async () => {
    const sku = unique('NEW').toUpperCase();
    const res = await call('products', { method: 'POST', body: { sku, name: '  Teapot  ' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      sku,
      name: 'Teapot',
      is_active: true,
      reorder_level: 10,
      current_stock: 0,
      low_stock: true,
      deleted_at: null,
    });
    expect(res.body.data.created_at).toMatch(API_INSTANT);
    const [row] = await sql`select sku, name from public.products where id = ${res.body.data.id}`;
    expect(row).toEqual({ sku, name: 'Teapot' });
  });

  it('the service key creates, updates and deletes products', async () => {
    const sku = unique('SVC').toUpperCase();
    const created = await call('products', { method: 'POST', token: tokens.service, body: { sku, name: 'By service' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const updated = await call(`products/${id}`, { method: 'PUT', token: tokens.service, body: { reorder_level: 3 } });
    expect(updated.body.data.reorder_level).toBe(3);
    expect((await call(`products/${id}`, { method: 'DELETE', token: tokens.service })).status).toBe(200);
  });

  it('a customer cannot create, update or delete a product: 403 FORBIDDEN, nothing changes', async () => {
    const sku = unique('CUST').toUpperCase();
    const create = await call('products', { method: 'POST', token: tokens.customer, body: { sku, name: 'Mine' } });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    expect(await sql`select 1 from public.products where sku = ${sku}`).toHaveLength(0);

    const { id, name } = await product(unique('cust'));
    const update = await call(`products/${id}`, { method: 'PUT', token: tokens.customer, body: { name: 'Renamed' } });
    expect(update.status).toBe(403);
    const remove = await call(`products/${id}`, { method: 'DELETE', token: tokens.customer });
    expect(remove.status).toBe(403);
    expect(await sql`select name, deleted_at from public.products where id = ${id}`).toEqual([{ name, deleted_at: null }]);
    expect((await call('products', { method: 'POST', token: tokens.anon, body: { sku, name: 'x' } })).status).toBe(401);
  });

  it("a duplicate SKU is 409 DUPLICATE_SKU, on create and on rename, a deleted product's SKU included", async () => {
    const taken = await product(unique('dup'));
    const create = await call('products', { method: 'POST', body: { sku: taken.sku, name: 'Again' } });
    expect(create.status).toBe(409);
    expect(create.body).toMatchObject({ code: 'DUPLICATE_SKU', details: { sku: taken.sku, product_id: taken.id } });

    const other = await product(unique('dup'));
    const rename = await call(`products/${other.id}`, { method: 'PUT', body: { sku: taken.sku } });
    expect(rename.status).toBe(409);
    expect(rename.body.code).toBe('DUPLICATE_SKU');

    expect((await call(`products/${taken.id}`, { method: 'DELETE' })).status).toBe(200);
    const reuse = await call('products', { method: 'POST', body: { sku: taken.sku, name: 'Reused' } });
    expect(reuse.status).toBe(409);
  });

  it('PUT changes only the fields sent and answers the product as listed', async () => {
    const created = await product(unique('put'), { reorder_level: 4 });
    const res = await call(`products/${created.id}`, { method: 'PUT', body: { name: 'Renamed', is_active: false } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: created.id, sku: created.sku, name: 'Renamed', is_active: false, reorder_level: 4 });
    const newSku = unique('RENAMED').toUpperCase();
    const renamed = await call(`products/${created.id}`, { method: 'PUT', body: { sku: newSku } });
    expect(renamed.body.data).toMatchObject({ sku: newSku, name: 'Renamed' });
  });

  it.each([
    ['an empty body', {}, null],
    ['an unknown field', { current_stock: 100 }, 'current_stock'],
    ['a malformed SKU', { sku: '-bad sku' }, 'sku'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a negative reorder level', { reorder_level: -1 }, 'reorder_level'],
    ['a fractional reorder level', { reorder_level: 1.5 }, 'reorder_level'],
    ['is_active as a string', { is_active: 'no' }, 'is_active'],
  ])('PUT refuses %s with 400 VALIDATION_ERROR', async (_, body, field) => {
    const { id } = await product(unique('bad'));
    const res = await call(`products/${id}`, { method: 'PUT', body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('POST requires sku and name', async () => {
    const res = await call('products', { method: 'POST', body: { name: 'No SKU' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'sku', constraint: 'required' });
  });

  it('PUT and DELETE of an unknown or deleted product are 404 PRODUCT_NOT_FOUND', async () => {
    const deleted = await createProduct(sql, { deleted: true });
    for (const id of [UNKNOWN_ID, deleted]) {
      const put = await call(`products/${id}`, { method: 'PUT', body: { name: 'x' } });
      expect(put.status).toBe(404);
      expect(put.body.code).toBe('PRODUCT_NOT_FOUND');
      const remove = await call(`products/${id}`, { method: 'DELETE' });
      expect(remove.status).toBe(404);
    }
  });

  it('DELETE is a soft delete: deactivated, hidden from customers, 404 to stock operations, its ledger kept', async () => {
    const { id } = await product(unique('soft'));
    await stockIn(id, 2);
    await stock('stock-out', { product_id: id, quantity: 2 });
    const res = await call(`products/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true });
    const [row] = await sql`select is_active, deleted_at is not null as deleted from public.products where id = ${id}`;
    expect(row).toEqual({ is_active: false, deleted: true });
    expect((await call(`products/${id}`, { token: tokens.customer })).status).toBe(404);
    const stockInAfter = await stock('stock-in', { product_id: id, quantity: 1 });
    expect(stockInAfter.status).toBe(404);
    expect(stockInAfter.body.code).toBe('PRODUCT_NOT_FOUND');
    expect((await call(`products/${id}/movements`)).body.pagination.total_count).toBe(2);
  });

  it('a product still holding stock cannot be deleted: 422 PRODUCT_HAS_STOCK, until its stock is gone', async () => {
    const { id } = await product(unique('holding'));
    await stockIn(id, 3);
    const refused = await call(`products/${id}`, { method: 'DELETE' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'PRODUCT_HAS_STOCK', details: { product_id: id, current_stock: 3 } });
    expect((await call(`products/${id}`)).body.data.deleted_at).toBeNull();
    await stock('stock-adjust', { product_id: id, adjust_quantity: -3, reason: 'expired_removal' });
    expect((await call(`products/${id}`, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('an inactive product', () => {
  it('takes no stock-in (422 PRODUCT_INACTIVE, nothing stocked), but its stock can still go out and be adjusted', async () => {
    const { id } = await product(unique('inactive'));
    await stockIn(id, 5);
    expect((await call(`products/${id}`, { method: 'PUT', body: { is_active: false } })).status).toBe(200);
    const refused = await stock('stock-in', { product_id: id, quantity: 1 });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ success: false, code: 'PRODUCT_INACTIVE', details: { product_id: id } });
    expect((await stockFigures(sql, id)).current_stock).toBe(5);
    expect((await stock('stock-out', { product_id: id, quantity: 2 })).status).toBe(200);
    expect((await stock('stock-adjust', { product_id: id, adjust_quantity: 1, reason: 'miscount_correction' })).status)
      .toBe(200);
    expect(await stockFigures(sql, id)).toEqual({ current_stock: 4, sum_available: 4, sum_deltas: 4 });
    expect((await call(`products/${id}`, { method: 'PUT', body: { is_active: true } })).status).toBe(200);
    expect((await stock('stock-in', { product_id: id, quantity: 1 })).status).toBe(201);
  });
});
