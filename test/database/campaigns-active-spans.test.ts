/**
 * `private.campaign_active_spans`, the stretches of activity attribution reads instead of walking each
 * campaign's status history, is derived data kept by triggers on `public.campaign_status_history`: after
 * any write to the history (added moves, rewritten times, removed rows, bulk writes in replica mode, as
 * the demo seed does) it must hold exactly the stretches the history describes. Campaigns here are dated
 * in 2001 and rolled back, outside every window other tests read.
 */
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { database, rolledBack } from '../support/client.ts';

const sql = database(4);

async function newCampaign(tx: postgres.TransactionSql) {
  const [{ id }] = await tx`
    insert into public.campaigns (name, start_date, end_date, campaign_type, attribution_layer, attribution_weight, priority_score)
    values ('Spans test', '2001-01-01', '2001-01-31', 'brand_week', 'category-specific', 1, 50)
    returning id`;
  await tx`delete from public.campaign_status_history where campaign_id = ${id}`;
  return id as string;
}

/** Adds moves at the given times, as the table owner: the test's way of having lived through the past. */
async function addMoves(tx: postgres.TransactionSql, id: string, moves: [string, string][]) {
  const rows = await tx`
    insert into public.campaign_status_history (campaign_id, to_status, changed_at, changed_by_role)
    select ${id}, m.status::public.campaign_status, m.changed_at::timestamptz, 'postgres'
    from jsonb_to_recordset(${tx.json(moves.map(([status, changed_at]) => ({ status, changed_at })))})
      as m(status text, changed_at text)
    returning id, to_status`;
  return rows.map((r) => r.id as string);
}

async function spans(tx: postgres.TransactionSql, id: string) {
  const rows = await tx`
    select to_char(first_day, 'YYYY-MM-DD') as first_day,
           case when last_day = 'infinity' then 'infinity' else to_char(last_day, 'YYYY-MM-DD') end as last_day
    from private.campaign_active_spans
    where campaign_id = ${id}
    order by first_day, last_day`;
  return rows.map((r) => [r.first_day, r.last_day]);
}

describe('stretches of activity (kept by triggers on the status history)', () => {
  it("hold the store's days (Asia/Taipei, the times here) a campaign was active at some moment: a move at midnight ends the day before, a zero-length stretch counts for none", async () => {
    await rolledBack(sql, async (tx) => {
      const id = await newCampaign(tx);
      await addMoves(tx, id, [
        ['draft', '2001-01-01T09:00:00+08'],
        ['active', '2001-01-03T08:00:00+08'],
        ['paused', '2001-01-05T00:00:00+08'],
        ['active', '2001-01-06T10:00:00+08'],
        ['paused', '2001-01-06T10:00:00+08'],
        ['active', '2001-01-08T23:59:59+08'],
      ]);
      expect(await spans(tx, id)).toEqual([['2001-01-03', '2001-01-04'], ['2001-01-08', 'infinity']]);
    });
  });

  it('follow every later write: a new move, a rewritten time, a removed row, a move made through the campaign', async () => {
    await rolledBack(sql, async (tx) => {
      const id = await newCampaign(tx);
      const [, activated] = await addMoves(tx, id, [['draft', '2001-01-01T09:00:00+08'], ['active', '2001-01-03T08:00:00+08']]);
      expect(await spans(tx, id)).toEqual([['2001-01-03', 'infinity']]);

      const [paused] = await addMoves(tx, id, [['paused', '2001-01-10T12:00:00+08']]);
      expect(await spans(tx, id)).toEqual([['2001-01-03', '2001-01-10']]);

      await tx`update public.campaign_status_history set changed_at = '2001-01-02T23:00:00+08' where id = ${activated}`;
      expect(await spans(tx, id)).toEqual([['2001-01-02', '2001-01-10']]);

      await tx`delete from public.campaign_status_history where id = ${paused}`;
      expect(await spans(tx, id)).toEqual([['2001-01-02', 'infinity']]);

      await tx`update public.campaigns set status = 'active' where id = ${id}`;
      await tx`update public.campaigns set status = 'completed' where id = ${id}`;
      const today = (await tx`select to_char(private.store_today(), 'YYYY-MM-DD') as today`)[0].today;
      expect(await spans(tx, id)).toEqual([['2001-01-02', today]]);
    });
  });

  it('are kept for history written with the triggers of replica mode off, as the demo seed writes it', async () => {
    await rolledBack(sql, async (tx) => {
      const id = await newCampaign(tx);
      await tx`select set_config('session_replication_role', 'replica', true)`;
      await addMoves(tx, id, [['draft', '2001-01-01T09:00:00+08'], ['active', '2001-01-04T08:00:00+08'], ['completed', '2001-01-09T08:00:00+08']]);
      await tx`select set_config('session_replication_role', 'origin', true)`;
      expect(await spans(tx, id)).toEqual([['2001-01-04', '2001-01-09']]);
    });
  });
});
