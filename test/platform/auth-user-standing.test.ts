// A signed token outlives its user: it stays valid until it expires. Every function must refuse the token of a
// user who has been deleted (or soft-deleted) or banned, in its own envelope, and move no stock for them.
import { describe, expect, it } from 'vitest';
import { asRole, call, createUser, database, mintToken } from '../support/client.ts';
import { createProduct, stockFigures } from '../support/inventory.ts';

const sql = database();

/** One request to every function that a signed-in user may make, as a user with `token`. */
function everyFunction(token: string, productId: string) {
  const post = (path: string, body: unknown) => call(path, { method: 'POST', token, body });
  return {
    'stock-in': post('stock-in', { product_id: productId, quantity: 5 }),
    'stock-adjust': post('stock-adjust', { product_id: productId, adjust_quantity: 3, reason: 'miscount_correction' }),
    'stock-out': post('stock-out', { product_id: productId, quantity: 1 }),
    products: call('products', { token }),
    orders: call('orders', { token }),
    campaigns: call('campaigns', { token }),
    'campaign-types': call('campaign-types', { token }),
    'business-health-analytics': post('business-health-analytics', { period: '7d' }),
  };
}

async function expectRefusedEverywhere(token: string, message: RegExp) {
  const productId = await createProduct(sql);
  for (const [name, pending] of Object.entries(everyFunction(token, productId))) {
    const res = await pending;
    expect(res.status, name).toBe(401);
    expect(JSON.stringify(res.body), name).toMatch(/"UNAUTHORIZED"/);
    expect(JSON.stringify(res.body), name).toMatch(message);
  }
  expect(await stockFigures(sql, productId)).toEqual({ current_stock: 0, sum_available: 0, sum_deltas: 0 });
}

describe('the token of a user who may no longer act', () => {
  it("a deleted user's token is refused by every function", async () => {
    const user = await createUser(sql);
    await sql`delete from auth.users where id = ${user.id}`;
    await expectRefusedEverywhere(user.token, /no longer exists/);
  });

  it("a soft-deleted user's token is refused (Supabase Auth keeps the row with deleted_at)", async () => {
    const user = await createUser(sql);
    await sql`update auth.users set deleted_at = private.now() where id = ${user.id}`;
    await expectRefusedEverywhere(user.token, /no longer exists/);
  });

  it("a banned user's token is refused while the ban lasts, and accepted once it has passed", async () => {
    const banned = await createUser(sql);
    await sql`update auth.users set banned_until = private.now() + interval '1 day' where id = ${banned.id}`;
    await expectRefusedEverywhere(banned.token, /banned/);
    const served = await createUser(sql);
    await sql`update auth.users set banned_until = private.now() - interval '1 second' where id = ${served.id}`;
    expect((await call('products', { token: served.token })).status).toBe(200);
  });

  it("a soft-deleted or banned user's token reads no business health through supabase-js either", async () => {
    // health.business_health is granted to signed-in users, so a token reaches it without the functions'
    // check; it asks the same private.user_standing.
    const report = (user: { id: string }) =>
      asRole(sql, { role: 'authenticated', sub: user.id }, (tx) =>
        tx`select health.business_health('7d', false, false, false) is not null as answered`);
    const [deleted, banned] = [await createUser(sql), await createUser(sql)];
    expect((await report(deleted)).result).toEqual([{ answered: true }]);
    await sql`update auth.users set deleted_at = private.now() where id = ${deleted.id}`;
    await sql`update auth.users set banned_until = private.now() + interval '1 day' where id = ${banned.id}`;
    for (const user of [deleted, banned]) {
      const { error } = await report(user);
      expect([error?.code, error?.message]).toEqual(['PT403', 'PERMISSION_DENIED']);
    }
  });

  it('a token whose subject was never a user is refused', async () => {
    const token = await mintToken({ role: 'authenticated', sub: crypto.randomUUID() });
    expect((await call('campaign-types', { token })).status).toBe(401);
  });
});
