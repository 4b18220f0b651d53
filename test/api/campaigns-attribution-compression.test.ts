// Large JSON answers go out gzipped to a client that accepts it (a day's attribution for 1,000 campaigns is
// about 334 KB, 34 KB gzipped), and as they are to one that does not. Raw HTTP here (node:http), which
// neither asks for nor undoes a compression by itself, unlike fetch.
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, freshDay } from '../support/campaigns.ts';
import { apiUrl, database, tokens, unique } from '../support/client.ts';

const sql = database();
const day = freshDay();

function get(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(`${apiUrl}/functions/v1/${path}`, { headers: { authorization: `Bearer ${tokens.admin}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  // 40 campaigns active on days of their own: an answer of about 14 KB.
  await sql.begin(async (tx) => {
    const ids = await tx`
      insert into public.campaigns (name, start_date, end_date, campaign_type, attribution_weight, priority_score)
      select ${unique('Compressed')} || ' ' || g, ${addDays(day, -2)}, ${addDays(day, 2)},
             (array['brand_week', 'vip_exclusive'])[1 + g % 2], 1 + (g % 5) * 0.5, g
      from generate_series(1, 40) g
      returning id`;
    await tx`update public.campaigns set status = 'active' where id = any(${ids.map((r) => r.id)}::uuid[])`;
  });
});

describe('compressed answers', () => {
  const path = `campaigns/attribution?date=${day}&order_amount=1234.56`;

  it('a gzip request gets a gzip body that decompresses to the same JSON; a client without Accept-Encoding gets identity', async () => {
    const plain = await get(path);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
    expect(plain.body.byteLength).toBeGreaterThan(8 * 1024);
    const answer = JSON.parse(plain.body.toString('utf8'));
    expect(answer.data.total_active_campaigns).toBe(40);

    const gzipped = await get(path, { 'accept-encoding': 'br;q=1.0, gzip;q=0.8, *;q=0.1' });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toMatch(/Accept-Encoding/);
    expect(gzipped.headers['content-type']).toBe('application/json');
    expect(gzipped.body.byteLength).toBeLessThan(plain.body.byteLength / 3);
    expect(gunzipSync(gzipped.body).toString('utf8')).toBe(plain.body.toString('utf8'));

    // What the database function answers, sent as it is.
    const [{ result }] = await sql`select private.campaign_attributions_json(${day}::date, 1234.56)::text as result`;
    expect(plain.body.toString('utf8')).toBe(`{"success":true,"data":${result}}`);
  });

  it.each([
    ['gzip;q=0', undefined],
    ['br', undefined],
    ['identity', undefined],
    ['*', 'gzip'],
    ['GZIP', 'gzip'],
  ])('Accept-Encoding: %s gets %s', async (acceptEncoding, encoding) => {
    const res = await get(path, { 'accept-encoding': acceptEncoding });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    const text = encoding ? gunzipSync(res.body).toString('utf8') : res.body.toString('utf8');
    expect(JSON.parse(text).data.total_active_campaigns).toBe(40);
  });

  it('a compressed answer asked again is the same bytes, and one that changed is never served from the earlier compression', async () => {
    const gzip = { 'accept-encoding': 'gzip' };
    const first = await get(path, gzip);
    const again = await get(path, gzip);
    expect(again.body.equals(first.body)).toBe(true);
    const [{ id }] = await sql`
      select id from public.campaigns where name like 'Compressed%' and status = 'active' order by priority_score limit 1`;
    await sql`update public.campaigns set status = 'paused' where id = ${id}`;
    try {
      const changed = await get(path, gzip);
      const answer = JSON.parse(gunzipSync(changed.body).toString('utf8'));
      expect(answer.data.total_active_campaigns).toBe(39);
      expect(answer.data.attributions.map((a: { campaign_id: string }) => a.campaign_id)).not.toContain(id);
      const plain = await get(path);
      expect(gunzipSync(changed.body).toString('utf8')).toBe(plain.body.toString('utf8'));
    } finally {
      await sql`update public.campaigns set status = 'active' where id = ${id}`;
    }
  });

  it('a small answer is sent as it is, whatever the client accepts', async () => {
    const res = await get(`campaigns/attribution?date=${addDays(day, 30)}`, { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary ?? '').not.toMatch(/Accept-Encoding/);
    expect(JSON.parse(res.body.toString('utf8')).data).toEqual({
      attribution_date: addDays(day, 30),
      total_active_campaigns: 0,
      active_layers: [],
      attributions: [],
    });
  });
});
