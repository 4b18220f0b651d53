// Campaign status changes racing each other in PostgreSQL itself, on separate connections with no retry
// in between: the site-wide rule must never deadlock, and the status history (from which attribution
// derives "active on a date") must record the changes in the order they took effect.
import { describe, expect, it } from 'vitest';
import { addDays, attributions, freshDay, storeToday } from '../support/campaigns.ts';
import { database, DEMO_ADMIN_ID, unique } from '../support/client.ts';

const sql = database(24);
const claims = JSON.stringify({ role: 'authenticated', sub: DEMO_ADMIN_ID });

describe('concurrent site-wide activations in SQL', () => {
  it('two concurrent batches activating overlapping site-wide campaigns in opposite orders never deadlock (40 batches, 20 at a time, no retry)', async () => {
    // Four date windows, five draft site-wide campaigns each; every batch activates one campaign of two
    // different windows, half of them in the opposite order: without one lock for site-wide activation,
    // batch 1 waits on batch 2's exclusion-constraint entry while batch 2 waits on batch 1's.
    const base = freshDay();
    const windows: string[][] = [];
    for (let w = 0; w < 4; w++) {
      const start = addDays(base, w * 10);
      const rows = await sql<{ id: string }[]>`
        insert into public.campaigns (name, start_date, end_date, campaign_type)
        select ${unique('Deadlock')} || '_' || n, ${start}::date, ${addDays(start, 3)}::date, 'anniversary_sale'
        from generate_series(1, 5) n
        returning id`;
      windows.push(rows.map((r) => r.id));
    }
    const pairs = [[0, 1], [1, 0], [2, 3], [3, 2], [0, 2], [2, 0], [1, 3], [3, 1], [0, 3], [3, 0], [1, 2], [2, 1]];
    const batches = Array.from({ length: 40 }, (_, j) => {
      const [a, b] = pairs[j % pairs.length];
      return [windows[a][j % 5], windows[b][(j + 2) % 5]];
    });

    const outcomes = await Promise.all(batches.map(async (ids) => {
      try {
        await sql.begin(async (tx) => {
          await tx`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${claims}, true)`;
          await tx`select count(*) from public.set_campaign_statuses(${ids}::uuid[], 'active')`;
        });
        return 'activated';
      } catch (error: any) {
        return `${error.code} ${error.message}`;
      }
    }));

    const counts = outcomes.reduce<Record<string, number>>((m, o) => ({ ...m, [o]: (m[o] ?? 0) + 1 }), {});
    expect(Object.keys(counts).filter((o) => o !== 'activated' && o !== 'PT422 CAMPAIGN_OVERLAP_CONFLICT'), JSON.stringify(counts))
      .toEqual([]);
    const active = new Set((await sql<{ id: string }[]>`
      select id from public.campaigns where id = any(${windows.flat()}) and status = 'active'`).map((r) => r.id));
    // The rule held, and what is active is exactly what the committed batches activated.
    for (const window of windows) expect(window.filter((id) => active.has(id)).length).toBeLessThanOrEqual(1);
    const activated = new Set(batches.filter((_, i) => outcomes[i] === 'activated').flat());
    expect([...active].sort()).toEqual([...activated].sort());
    expect(activated.size).toBeGreaterThan(0);
  }, 120_000);
});

describe('status history under concurrent changes', () => {
  it('a campaign cancelled by a transaction that began before a concurrent activation ends cancelled in the history and earns no attribution after the cancel day', async () => {
    const today = storeToday();
    // Category-specific, so no site-wide rule of another test file can interfere with today's dates.
    const [{ id }] = await sql<{ id: string }[]>`
      insert into public.campaigns (name, start_date, end_date, campaign_type)
      values (${unique('Interleaved')}, ${today}, ${addDays(today, 9)}, 'brand_week')
      returning id`;

    const t1 = await sql.reserve();
    const t2 = await sql.reserve();
    try {
      // T1 begins (its now() is taken here) ...
      await t1`begin`;
      await t1`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${claims}, true)`;
      // ... T2 activates and commits ...
      await t2`begin`;
      await t2`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${claims}, true)`;
      await t2`select 1 from public.update_campaign(${id}, '{"status":"active"}')`;
      await t2`commit`;
      // ... then T1 cancels and commits.
      await t1`select 1 from public.update_campaign(${id}, '{"status":"cancelled"}')`;
      await t1`commit`;
    } finally {
      t1.release();
      t2.release();
    }

    // The order attribution walks (changed_at, id) is the order the changes took effect.
    const history = await sql<{ from_status: string | null; to_status: string }[]>`
      select from_status, to_status from public.campaign_status_history
      where campaign_id = ${id} order by changed_at, id`;
    expect(history.map((h) => [h.from_status, h.to_status])).toEqual([
      [null, 'draft'],
      ['draft', 'active'],
      ['active', 'cancelled'],
    ]);
    const byId = await sql`select to_status from public.campaign_status_history where campaign_id = ${id} order by id`;
    expect(byId.map((h) => h.to_status)).toEqual(['draft', 'active', 'cancelled']);

    // Its stretch of activity ends on the cancel day, so the days after it attribute nothing to it.
    const spans = await sql`select first_day::text, last_day::text from private.campaign_active_spans where campaign_id = ${id}`;
    expect(spans.every((s) => s.last_day !== 'infinity')).toBe(true);
    for (const day of [addDays(today, 1), addDays(today, 5)]) {
      const result = await attributions(sql, day, 100);
      expect(result.attributions.map((a: any) => a.campaign_id), day).not.toContain(id);
    }
  });
});
