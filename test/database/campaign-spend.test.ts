/**
 * A campaign's spend is one figure: a spend row belongs to its campaign (a day within its dates, a campaign
 * scheduled and not deleted), every route states the same amount for the same days, and a total is summed
 * exactly and rounded once. On a store of its own, so the totals are only this file's campaigns.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedStore, scratchDatabase } from '../support/client.ts';

const store = scratchDatabase('campaign_spend');
let sql: postgres.Sql;

beforeAll(async () => {
  sql = await migratedStore(store);
});

afterAll(() => sql?.end());

/** A category campaign of `budget` over [start, end], moved to `status` (none: a draft), as the service key. */
async function campaign(start: string, end: string, { budget = 100, status = 'active' as string | null } = {}) {
  return sql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', '{"role":"service_role"}', true)`;
    const [{ id }] = await tx`select id from public.create_campaign(${
      tx.json({ name: `Spend ${start}`, start_date: start, end_date: end, campaign_type: 'brand_week', budget })
    })`;
    if (status) await tx`select 1 from public.update_campaign(${id}, ${tx.json({ status })})`;
    return id as string;
  });
}

const record = (id: string, day: string, amount = 10) =>
  sql`insert into public.campaign_spend (campaign_id, spend_date, amount) values (${id}, ${day}, ${amount})`
    .then(() => null, (error: postgres.PostgresError) => ({ code: error.message, details: JSON.parse(error.hint!) }));

describe('spend belongs to its campaign', () => {
  it('a day outside its dates, a draft and a deleted campaign are refused 422 SPEND_OUTSIDE_CAMPAIGN; a day within is recorded', async () => {
    const active = await campaign('2300-03-01', '2300-03-10');
    expect(await record(active, '2299-01-25')).toMatchObject({
      code: 'SPEND_OUTSIDE_CAMPAIGN',
      details: { campaign_id: active, spend_date: '2299-01-25', start_date: '2300-03-01', end_date: '2300-03-10' },
    });
    expect(await record(active, '2300-03-11')).toMatchObject({ code: 'SPEND_OUTSIDE_CAMPAIGN' });
    expect(await record(active, '2300-03-10')).toBeNull();
    const draft = await campaign('2300-04-01', '2300-04-10', { status: null });
    expect(await record(draft, '2300-04-02')).toMatchObject({ code: 'SPEND_OUTSIDE_CAMPAIGN', details: { status: 'draft' } });
    const deleted = await campaign('2300-05-01', '2300-05-10');
    await sql`update public.campaigns set deleted_at = private.now() where id = ${deleted}`;
    expect(await record(deleted, '2300-05-02')).toMatchObject({ code: 'SPEND_OUTSIDE_CAMPAIGN' });
  });

  it("a row outside the dates (kept from before the rule) counts nowhere: the campaign's route and the window's agree", async () => {
    const id = await campaign('2300-06-10', '2300-06-12');
    expect(await record(id, '2300-06-11', 1200)).toBeNull();
    await sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`insert into public.campaign_spend (campaign_id, spend_date, amount) values (${id}, '2300-06-01', 800)`;
    });
    const [{ own }] = await sql`select spend as own from private.campaign_returns('2300-06-10', '2300-06-12', ${id})`;
    const [{ window }] = await sql`select spend as window from private.campaign_returns('2300-06-01', '2300-06-30', ${id})`;
    const [{ figures }] = await sql`select private.marketing_window_figures('2300-06-01', '2300-06-30') as figures`;
    expect([own, window, figures.spend]).toEqual([1200, 1200, 1200]);
  });
});

describe('totals are summed exactly and rounded once', () => {
  it("three campaigns each spreading 100 over 3 days, one day each: 100.00 in all, not 3 × 33.33", async () => {
    for (let i = 0; i < 3; i++) await campaign('2301-01-01', '2301-01-03');
    const [{ figures, health }] = await sql`
      select private.marketing_window_figures('2301-01-01', '2301-01-01') as figures,
             private.health_marketing_figures('2301-01-01', '2301-01-01', true) as health`;
    expect(figures.spend).toBe(100);
    expect(health.spend).toBe(100);
    expect(figures.top_campaigns.map((c: { spend: number }) => c.spend)).toEqual([33.33, 33.33, 33.33]);
  });
});

describe('a comparison with last year has as many days as its period', () => {
  it.each([
    // Periods long past (a custom period ends today at the latest), whatever moment the suite runs at.
    ['2021-02-28', '2021-03-01', '2020-02-28', '2020-02-29'],
    ['2020-02-29', '2020-03-01', '2019-02-28', '2019-03-01'],
    ['2021-01-01', '2021-12-31', '2020-01-01', '2020-12-30'],
  ])('%s..%s is compared with %s..%s', async (from, to, compareFirst, compareLast) => {
    const [days] = await sql`
      select compare_first::text, compare_last::text, compare_last - compare_first = ${to}::date - ${from}::date as same
      from private.health_custom_days(${from}, ${to}, 'last_year', null, null)`;
    expect(days).toEqual({ compare_first: compareFirst, compare_last: compareLast, same: true });
  });
});
