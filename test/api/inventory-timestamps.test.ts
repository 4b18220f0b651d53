// One format for instants everywhere: the inventory answers built as jsonb in SQL give them as the other
// functions do (a JavaScript Date in JSON), ISO 8601 in UTC with milliseconds and `Z`, never PostgreSQL's
// `2026-11-23T16:00:00.123456+00:00`. (call() also holds every answer to the documents, which say so.)
import { describe, expect, it } from 'vitest';
import { asRole, call, database, tokens, unique } from '../support/client.ts';
import { createProduct } from '../support/inventory.ts';

const sql = database();
const API_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function stockIn(body: Record<string, unknown>, key?: string) {
  return call('stock-in', { method: 'POST', body, headers: key ? { 'idempotency-key': key } : {} });
}

describe('instants in inventory answers', () => {
  it('stock-in gives received_at in UTC with milliseconds and Z, the microseconds truncated as a Date truncates them', async () => {
    const productId = await createProduct(sql);
    // A whole second some weeks back (a received_at ahead of now is refused), written at +02:00 with microseconds.
    const second = Math.floor((Date.now() - 30 * 86_400_000) / 1000) * 1000;
    const atPlusTwo = new Date(second + 2 * 3_600_000).toISOString().slice(0, 19);
    const res = await stockIn({ product_id: productId, quantity: 1, received_at: `${atPlusTwo}.678999+02:00` });
    expect(res.status).toBe(201);
    expect(res.body.received_at).toBe(new Date(second + 678).toISOString());
    expect(res.body.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.678Z$/);
  });

  it('the default received_at (now) comes in the same format, and a replay repeats it', async () => {
    const productId = await createProduct(sql);
    const key = unique('format');
    const first = await stockIn({ product_id: productId, quantity: 1 }, key);
    expect(first.body.received_at).toMatch(API_INSTANT);
    const replay = await stockIn({ product_id: productId, quantity: 1 }, key);
    expect(replay.body.received_at).toBe(first.body.received_at);
  });

  it("IDEMPOTENCY_KEY_REUSED's first_used_at and a refused received_at use the format too", async () => {
    const productId = await createProduct(sql);
    const key = unique('reused');
    await stockIn({ product_id: productId, quantity: 1 }, key);
    const reused = await stockIn({ product_id: productId, quantity: 2 }, key);
    expect(reused.status).toBe(422);
    expect(reused.body.details.first_used_at).toMatch(API_INSTANT);

    const { error } = await asRole(sql, { role: 'service_role' }, (tx) =>
      tx`select public.stock_in(${productId}::uuid, 1::bigint, received_at => '2099-01-01T00:00:00.5+01:00'::timestamptz)`);
    expect(JSON.parse(error!.hint!).value).toBe('2098-12-31T23:00:00.500Z');
  });

  it('the products answers and the catalogue agree on the format', async () => {
    const productId = await createProduct(sql);
    const product = await call(`products/${productId}`);
    const catalogue = await call('campaign-types?per_page=1', { token: tokens.admin });
    for (const instant of [product.body.data.created_at, product.body.data.updated_at, catalogue.body.data[0].created_at]) {
      expect(instant).toMatch(API_INSTANT);
    }
  });

  it('private.api_timestamp writes any instant in UTC with milliseconds and Z', async () => {
    const [row] = await sql`
      select private.api_timestamp('2026-11-23 18:00:00.123999+02') as with_offset,
             private.api_timestamp('2026-11-23 16:00:00Z') as whole_second,
             private.api_timestamp(null) as nothing`;
    expect(row).toEqual({ with_offset: '2026-11-23T16:00:00.123Z', whole_second: '2026-11-23T16:00:00.000Z', nothing: null });
  });
});
