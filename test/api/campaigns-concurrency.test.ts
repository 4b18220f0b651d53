// Many status changes at once over HTTP: the site-wide rule ("at most one site-wide campaign active per
// date") must pick exactly the winners it allows, answer everyone else 422, and never deadlock or 500.
import { describe, expect, it } from 'vitest';
import { addDays, freshDay } from '../support/campaigns.ts';
import { call, database, unique } from '../support/client.ts';

const sql = database();

const SLOTS = 4;
const PER_SLOT = 10;
const BATCHES = 40;

/**
 * SLOTS date windows far apart, each with PER_SLOT draft site-wide campaigns covering it (so at most one
 * per slot may be active), and BATCHES pairs of campaigns from two different slots, sent in both orders
 * (slot a then b, and b then a): the pattern that made concurrent batches wait on each other's
 * exclusion-constraint entries in a cycle.
 */
async function overlappingPairs() {
  const base = freshDay();
  const slots: string[][] = [];
  for (let s = 0; s < SLOTS; s++) {
    const start = addDays(base, s * 10);
    const rows = await sql<{ id: string }[]>`
      insert into public.campaigns (name, start_date, end_date, campaign_type)
      select ${unique('Storm')} || '_' || n, ${start}::date, ${addDays(start, 3)}::date,
             case when n % 2 = 0 then 'anniversary_sale' else 'double_eleven' end
      from generate_series(1, ${PER_SLOT}) n
      returning id`;
    slots.push(rows.map((r) => r.id));
  }
  const orderedSlotPairs = Array.from({ length: SLOTS }, (_, a) => Array.from({ length: SLOTS }, (_, b) => [a, b]))
    .flat()
    .filter(([a, b]) => a !== b);
  const batches = Array.from({ length: BATCHES }, (_, j) => {
    const [a, b] = orderedSlotPairs[j % orderedSlotPairs.length];
    return { slots: [a, b], ids: [slots[a][j % PER_SLOT], slots[b][(j + 3) % PER_SLOT]] };
  });
  return { slots, batches };
}

describe('concurrent site-wide activations', () => {
  it('40 concurrent bulk-status batches activating overlapping site-wide campaigns never deadlock: exactly the allowed winners, the rest 422, no 5xx', async () => {
    const { slots, batches } = await overlappingPairs();
    const responses = await Promise.all(
      batches.map((batch) =>
        call('campaigns/bulk-status', { method: 'PUT', body: { campaign_ids: batch.ids, status: 'active' } })
      ),
    );

    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500), responses.filter((r) => r.status >= 500).map((r) => r.text).join('\n'))
      .toEqual([]);
    expect(new Set(statuses)).toEqual(new Set(statuses.filter((s) => s === 200 || s === 422)));
    for (const refused of responses.filter((r) => r.status === 422)) {
      expect(refused.body.error.code, refused.text).toBe('CAMPAIGN_OVERLAP_CONFLICT');
    }

    const active = new Set(
      (await sql<{ id: string }[]>`select id from public.campaigns where id = any(${slots.flat()}) and status = 'active'`)
        .map((r) => r.id),
    );
    // At most one active campaign per slot: the rule held.
    for (const slot of slots) expect(slot.filter((id) => active.has(id)).length).toBeLessThanOrEqual(1);
    // What is active is exactly what the batches answered 200 activated (a campaign may be in two
    // batches: activating an active campaign is staying put, not a move); nothing else moved.
    const winners = batches.filter((_, i) => statuses[i] === 200);
    expect(winners.length).toBeGreaterThan(0);
    expect([...active].sort()).toEqual([...new Set(winners.flatMap((b) => b.ids))].sort());
    // Every refused batch lost to a winner: one of its slots is taken, so the rule allowed no more.
    const taken = new Set(slots.flatMap((slot, s) => (slot.some((id) => active.has(id)) ? [s] : [])));
    for (const [i, batch] of batches.entries()) {
      if (statuses[i] === 422) expect(batch.slots.some((s) => taken.has(s)), JSON.stringify(batch)).toBe(true);
    }
  }, 180_000);
});
