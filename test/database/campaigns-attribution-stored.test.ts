/**
 * `private.campaign_attribution_days`, the shares every attribution answer reads, is derived data kept by
 * statement-level triggers on `public.campaigns` and `public.campaign_status_history`: after any write
 * (through the write functions, straight to the tables, in replica mode as the demo seed writes, in bulk,
 * concurrently) it must hold exactly what `private.campaign_attribution_shares`, the rules, computes from
 * the campaigns and their history, for the days written and for every day. Campaigns here live on days of
 * their own (freshDay) and are rolled back, except where a commit is the point.
 */
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { addDays, admin, freshDay, TYPE_BY_LAYER } from '../support/campaigns.ts';
import { database, unique } from '../support/client.ts';

const sql = database(4);

type Tx = postgres.TransactionSql;

/** Rows of the stored table and of a full recompute that the other lacks, over [from, to]. */
async function drift(tx: Tx | postgres.Sql, from: string, to: string) {
  const [row] = await tx`
    with stored as (
      select * from private.campaign_attribution_days d where d.attribution_date between ${from}::text::date and ${to}::text::date
    ), recomputed as (
      select * from private.campaign_attribution_shares(${from}::text::date, ${to}::text::date)
    )
    select (select count(*) from (select * from stored except all select * from recomputed) s)::int as missing_from_recompute,
           (select count(*) from (select * from recomputed except all select * from stored) r)::int as missing_from_table,
           (select count(*) from stored)::int as rows`;
  return row as { missing_from_recompute: number; missing_from_table: number; rows: number };
}

/** As the demo administrator, within the transaction (the write functions check the caller). */
async function asAdmin<T>(tx: Tx, work: () => Promise<T>): Promise<T> {
  await tx`select set_config('role', 'authenticated', true),
                  set_config('request.jwt.claims', ${JSON.stringify({ role: 'authenticated', sub: admin.sub })}, true)`;
  try {
    return await work();
  } finally {
    await tx`reset role`;
  }
}

async function create(tx: Tx, layer: keyof typeof TYPE_BY_LAYER, start: string, end: string, weight: number, priority: number) {
  return asAdmin(tx, async () => {
    const [{ id }] = await tx`select id from public.create_campaign(${
      tx.json({ name: unique('Stored "days"'), start_date: start, end_date: end, campaign_type: TYPE_BY_LAYER[layer], attribution_weight: weight, priority_score: priority })
    })`;
    return id as string;
  });
}

async function update(tx: Tx, id: string, changes: Record<string, unknown>) {
  await asAdmin(tx, () => tx`select 1 from public.update_campaign(${id}, ${tx.json(changes as postgres.JSONValue)})`);
}

describe('stored attribution days (kept by triggers on campaigns and their status history)', () => {
  it('the stored attribution equals a full recompute after every kind of campaign and history write (create, edit dates/weight/priority, status moves, delete, in replica mode, bulk)', async () => {
    const day = freshDay();
    const from = addDays(day, -40);
    const to = addDays(day, 60);
    const steps: string[] = [];
    await sql.begin('isolation level repeatable read', async (tx) => {
      const expectExact = async (step: string, { rows }: { rows?: 'some' | 'none' } = {}) => {
        steps.push(step);
        const found = await drift(tx, from, to);
        expect({ step, missing_from_recompute: found.missing_from_recompute, missing_from_table: found.missing_from_table })
          .toEqual({ step, missing_from_recompute: 0, missing_from_table: 0 });
        if (rows === 'some') expect(found.rows, step).toBeGreaterThan(0);
        if (rows === 'none') expect(found.rows, step).toBe(0);
      };

      const ids = [
        await create(tx, 'category-specific', day, addDays(day, 9), 1.2, 60),
        await create(tx, 'target-oriented', addDays(day, 3), addDays(day, 14), 1.6, 85),
        await create(tx, 'category-specific', addDays(day, -5), addDays(day, 5), 1.2, 60),
        await create(tx, 'site-wide', addDays(day, 6), addDays(day, 20), 2, 95),
        await create(tx, 'target-oriented', addDays(day, -2), addDays(day, 2), 0, 0),
        await create(tx, 'category-specific', addDays(day, 1), addDays(day, 30), 9.99, 100),
        await create(tx, 'category-specific', addDays(day, 1), addDays(day, 30), 9.99, 100),
        await create(tx, 'target-oriented', addDays(day, 10), addDays(day, 12), 1, 50),
      ];
      await expectExact('create (drafts count nowhere)', { rows: 'none' });

      for (const id of ids.slice(0, 7)) await update(tx, id, { status: 'active' });
      await expectExact('activate', { rows: 'some' });

      await update(tx, ids[0], { end_date: addDays(day, 4) });
      await expectExact('shorten the dates');
      await update(tx, ids[0], { start_date: addDays(day, -8), end_date: addDays(day, 25) });
      await expectExact('widen the dates');
      await update(tx, ids[2], { start_date: addDays(day, 15), end_date: addDays(day, 18) });
      await expectExact('move the dates elsewhere');
      await update(tx, ids[1], { attribution_weight: 3.33 });
      await expectExact('edit the weight');
      await update(tx, ids[1], { priority_score: 7 });
      await expectExact('edit the priority');
      await update(tx, ids[5], { name: 'Quote " backslash \\ tab\t newline\n é中文🙂 \u0001' });
      await expectExact('rename (the entries carry the name)');
      await update(tx, ids[4], { budget: 10 });
      await expectExact('edit what attribution does not read');

      await update(tx, ids[3], { status: 'paused' });
      await expectExact('pause');
      await update(tx, ids[3], { status: 'active' });
      await expectExact('resume');
      await update(tx, ids[1], { status: 'completed' });
      await expectExact('complete');
      await update(tx, ids[6], { status: 'cancelled' });
      await expectExact('cancel');
      await update(tx, ids[7], { status: 'cancelled' });
      await expectExact('cancel a draft');

      await asAdmin(tx, () => tx`select 1 from public.delete_campaign(${ids[5]})`);
      await expectExact('delete');
      await asAdmin(tx, () => tx`update public.campaigns set deleted_at = null where id = ${ids[5]}`);
      await expectExact('restore');

      await asAdmin(tx, () => tx`select 1 from public.set_campaign_statuses(${[ids[0], ids[3], ids[5]]}::uuid[], 'paused')`);
      await expectExact('bulk status move');
      expect(await tx`select * from private.campaign_attribution_pending`).toHaveLength(0);
      await asAdmin(tx, () => tx`select 1 from public.set_campaign_statuses(${[ids[5], ids[0], ids[3]]}::uuid[], 'active')`);
      await expectExact('bulk status move back');
      await asAdmin(tx, () =>
        tx`update public.campaigns set attribution_weight = round(attribution_weight / 2, 2), end_date = end_date + 1
           where id = any(${[ids[0], ids[2], ids[4], ids[5]]}::uuid[])`);
      await expectExact('one statement editing several campaigns');

      // The history as its owner writes it: moves dated in the past of those days, rewritten, removed.
      const moves = await tx`
        insert into public.campaign_status_history (campaign_id, from_status, to_status, changed_at, changed_by_role)
        values (${ids[4]}, 'active', 'paused', ${`${addDays(day, -1)}T12:00:00+08:00`}, 'postgres'),
               (${ids[4]}, 'paused', 'active', ${`${addDays(day, 1)}T00:00:00+08:00`}, 'postgres'),
               (${ids[2]}, 'active', 'paused', ${`${addDays(day, 16)}T08:00:00+08:00`}, 'postgres')
        returning id`;
      await expectExact('history rows added in one statement');
      await tx`update public.campaign_status_history set changed_at = ${`${addDays(day, 2)}T06:00:00+08:00`} where id = ${moves[1].id}`;
      await expectExact('a move redated');
      await tx`delete from public.campaign_status_history where id = ${moves[0].id}`;
      await expectExact('a move removed');

      // Replica mode, as the demo seed and a logical replica write: no rules, no recorded moves, but the
      // derived data still follows.
      await tx`select set_config('session_replication_role', 'replica', true)`;
      const seeded = await tx`
        insert into public.campaigns (name, status, start_date, end_date, campaign_type, attribution_layer, attribution_weight, priority_score)
        values (${unique('Seeded')}, 'active', ${addDays(day, -10)}, ${addDays(day, 10)}, 'brand_week', 'category-specific', 1.5, 40),
               (${unique('Seeded')}, 'completed', ${addDays(day, -12)}, ${addDays(day, 3)}, 'vip_exclusive', 'target-oriented', 2.25, 70)
        returning id`;
      await tx`
        insert into public.campaign_status_history (campaign_id, from_status, to_status, changed_at, changed_by_role)
        select s.id, m.from_status::public.campaign_status, m.to_status::public.campaign_status, m.changed_at::timestamptz, 'postgres'
        from (values (${seeded[0].id}::uuid, 0), (${seeded[1].id}::uuid, 1)) s(id, n)
        cross join lateral (values
          (null, 'draft', ${`${addDays(day, -20)}T09:00:00+08:00`}),
          ('draft', 'active', ${`${addDays(day, -9)}T09:00:00+08:00`}),
          ('active', 'completed', case when s.n = 1 then ${`${addDays(day, 2)}T09:00:00+08:00`} end)
        ) m(from_status, to_status, changed_at)
        where m.changed_at is not null`;
      await tx`update public.campaigns set end_date = ${addDays(day, 5)} where id = ${seeded[0].id}`;
      await tx`update public.campaigns set status = 'paused' where id = ${seeded[0].id}`;
      await tx`select set_config('session_replication_role', 'origin', true)`;
      await expectExact('replica mode: campaigns, their history and edits written straight to the tables');

      // Removed for good: its history first (the foreign key), then the campaign.
      await tx`delete from public.campaign_status_history where campaign_id = ${seeded[1].id}`;
      await tx`delete from public.campaigns where id = ${seeded[1].id}`;
      await expectExact('a campaign and its history removed');

      const all = await drift(tx, '-infinity', 'infinity');
      expect(all).toMatchObject({ missing_from_recompute: 0, missing_from_table: 0 });
      throw new Error('rollback');
    }).catch((error) => {
      if (error.message !== 'rollback') throw error;
    });
    expect(steps).toHaveLength(24);
  });

  it('a move deferred by a batch and left pending is recomputed at commit', async () => {
    const day = freshDay();
    const id = await sql.begin(async (tx) => {
      const id = await create(tx, 'target-oriented', day, addDays(day, 4), 1.6, 85);
      await asAdmin(tx, async () => {
        await tx`select private.defer_campaign_attribution(${[id]}::uuid[])`;
        await tx`update public.campaigns set status = 'active' where id = ${id}`;
      });
      // Deferred: not yet recomputed within the transaction.
      expect(await tx`select 1 from private.campaign_attribution_days where campaign_id = ${id}`).toHaveLength(0);
      return id;
    });
    expect(await sql`select 1 from private.campaign_attribution_pending`).toHaveLength(0);
    expect(await sql`select attribution_date::text from private.campaign_attribution_days where campaign_id = ${id} order by 1`)
      .toHaveLength(5);
    expect(await drift(sql, day, addDays(day, 4))).toMatchObject({ missing_from_recompute: 0, missing_from_table: 0, rows: 5 });
  });

  it('concurrent writes to campaigns of the same days both end up in the stored days: the second waits for the first', async () => {
    const day = freshDay();
    const a = await sql.begin((tx) => create(tx, 'category-specific', day, addDays(day, 6), 1.2, 60));
    const b = await sql.begin((tx) => create(tx, 'target-oriented', addDays(day, 3), addDays(day, 9), 1.6, 85));
    const first = sql.reserve();
    const second = sql.reserve();
    const [one, two] = await Promise.all([first, second]);
    try {
      const claims = JSON.stringify({ role: 'authenticated', sub: admin.sub });
      for (const connection of [one, two]) {
        await connection`begin`;
        await connection`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${claims}, true)`;
      }
      await one`select 1 from public.update_campaign(${a}, '{"status":"active"}')`;
      let secondDone = false;
      const secondWrite = two`select 1 from public.update_campaign(${b}, '{"status":"active"}')`.then(() => (secondDone = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(secondDone).toBe(false);
      await one`commit`;
      await secondWrite;
      await two`commit`;
    } finally {
      one.release();
      two.release();
    }
    const found = await drift(sql, day, addDays(day, 9));
    expect(found).toEqual({ missing_from_recompute: 0, missing_from_table: 0, rows: 7 + 7 });
    const shared = await sql`select total_active_campaigns from private.campaign_attribution_days where attribution_date = ${addDays(day, 4)}`;
    expect(shared.map((r) => r.total_active_campaigns)).toEqual([2, 2]);
  });
});
