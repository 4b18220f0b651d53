// The campaign rules held by PostgreSQL itself: the status machine as a table of every (from, to) pair,
// the status history the database keeps, and what a supabase-js client could try on the tables directly.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { MAX_BUDGET } from '../../supabase/functions/_shared/money.ts';
import { addDays, admin, campaignIn, freshDay } from '../support/campaigns.ts';
import { asRole, call, database, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID } from '../support/client.ts';

const sql = database();
const customer = { role: 'authenticated', sub: DEMO_CUSTOMER_ID } as const;
const anon = { role: 'anon' } as const;

const STATUSES = ['draft', 'active', 'paused', 'completed', 'cancelled'] as const;
const ALLOWED = new Set([
  'draft>active',
  'draft>cancelled',
  'active>paused',
  'active>completed',
  'active>cancelled',
  'paused>active',
  'paused>completed',
  'paused>cancelled',
]);
/** The shortest allowed path from draft to each status. */
const PATH_TO: Record<string, string[]> = {
  draft: [],
  active: ['active'],
  paused: ['active', 'paused'],
  completed: ['active', 'completed'],
  cancelled: ['cancelled'],
};
const PAIRS = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));

describe('the status machine', () => {
  it.each(PAIRS)('%s -> %s: allowed moves answer 200 and are recorded, any other move 422 and changes nothing', async (from, to) => {
    const id = await campaignIn(PATH_TO[from]);
    const historyBefore = await sql`select to_status from public.campaign_status_history where campaign_id = ${id} order by id`;
    const res = await call(`campaigns/${id}`, { method: 'PUT', body: { status: to } });
    const [{ status }] = await sql`select status from public.campaigns where id = ${id}`;
    const history = await sql`select from_status, to_status, changed_by from public.campaign_status_history
                              where campaign_id = ${id} order by id`;
    if (from === to) {
      // Staying put is not a move: accepted, nothing recorded.
      expect(res.status).toBe(200);
      expect(history).toHaveLength(historyBefore.length);
    } else if (ALLOWED.has(`${from}>${to}`)) {
      expect(res.status, res.text).toBe(200);
      expect(status).toBe(to);
      expect(history.at(-1)).toEqual({ from_status: from, to_status: to, changed_by: DEMO_ADMIN_ID });
      expect(history).toHaveLength(historyBefore.length + 1);
    } else {
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', details: { field: 'status', value: to } });
      expect(status).toBe(from);
      expect(history).toHaveLength(historyBefore.length);
    }
  });

  it('holds for direct table writes too: an admin session cannot skip a step or create an active campaign', async () => {
    const id = await campaignIn([]);
    const skip = await asRole(sql, admin, (tx) => tx`update public.campaigns set status = 'completed' where id = ${id}`);
    expect(skip.error?.code).toBe('PT422');
    expect(skip.error?.message).toBe('INVALID_STATUS_TRANSITION');
    const start = freshDay();
    const born = await asRole(sql, admin, (tx) => tx`
      insert into public.campaigns (name, start_date, end_date, campaign_type)
      values ('direct', ${start}, ${addDays(start, 1)}, 'brand_week') returning status`);
    expect(born.result).toEqual([{ status: 'draft' }]);
  });

  it('a direct insert of a general-layer type gets the same reason as the function: the catalogue\'s catch-all (PT400)', async () => {
    const start = freshDay();
    const { error } = await asRole(sql, admin, (tx) => tx`
      insert into public.campaigns (name, start_date, end_date, campaign_type)
      values ('direct', ${start}, ${addDays(start, 1)}, 'coupon_code')`);
    expect(error?.code).toBe('PT400');
    expect(error?.message).toBe('VALIDATION_ERROR');
    expect(error?.detail).toContain('coupon_code is a general-layer type');
    expect(JSON.parse(error!.hint!)).toMatchObject({ field: 'campaign_type', constraint: expect.stringContaining("catalogue's catch-all") });
  });

  it('dates are calendar days: infinity is refused on direct writes (PT400), in replica mode too (the check constraint)', async () => {
    const start = freshDay();
    const { error } = await asRole(sql, admin, (tx) => tx`
      insert into public.campaigns (name, start_date, end_date, campaign_type)
      values ('forever', ${start}, 'infinity'::text::date, 'brand_week')`);
    expect(error?.code).toBe('PT400');
    expect(JSON.parse(error!.hint!)).toMatchObject({ field: 'end_date', value: 'infinity' });
    const edited = await asRole(sql, admin, async (tx) => {
      const [{ id }] = await tx`insert into public.campaigns (name, start_date, end_date, campaign_type)
                                values ('bounded', ${start}, ${addDays(start, 1)}, 'brand_week') returning id`;
      await tx`update public.campaigns set start_date = '-infinity'::text::date where id = ${id}`;
    });
    expect(JSON.parse(edited.error!.hint!)).toMatchObject({ field: 'start_date', value: '-infinity' });
    const replica = await sql.begin(async (tx) => {
      await tx`select set_config('session_replication_role', 'replica', true)`;
      await tx`insert into public.campaigns (name, start_date, end_date, campaign_type, attribution_layer, attribution_weight, priority_score)
               values ('forever', ${start}, 'infinity'::text::date, 'brand_week', 'category-specific', 1, 50)`;
      throw new Error('the insert was accepted');
    }).catch((error) => error);
    expect(replica.code).toBe('23514');
    expect(replica.constraint_name).toBe('campaigns_dates_finite');
  });

  it('records the creation and every move with who made it, in order', async () => {
    const id = await campaignIn(['active', 'paused', 'active', 'completed']);
    const history = await sql`select from_status, to_status, changed_by, changed_by_role
                              from public.campaign_status_history where campaign_id = ${id} order by id`;
    expect(history.map((h) => [h.from_status, h.to_status])).toEqual([
      [null, 'draft'],
      ['draft', 'active'],
      ['active', 'paused'],
      ['paused', 'active'],
      ['active', 'completed'],
    ]);
    expect(history.every((h) => h.changed_by === DEMO_ADMIN_ID && h.changed_by_role === 'authenticated')).toBe(true);
  });
});

describe('row level security and grants', () => {
  it('a customer session cannot insert or change a campaign, even without the function', async () => {
    const id = await campaignIn([]);
    const start = freshDay();
    const insert = await asRole(sql, customer, (tx) => tx`
      insert into public.campaigns (name, start_date, end_date, campaign_type) values ('x', ${start}, ${start}, 'brand_week')`);
    expect(insert.error?.code).toBe('42501');
    const update = await asRole(sql, customer, (tx) => tx`update public.campaigns set name = 'x' where id = ${id} returning 1`);
    expect(update.result).toHaveLength(0);
    const rpc = await asRole(sql, customer, (tx) => tx`select public.update_campaign(${id}, '{"name":"x"}')`);
    expect(rpc.error?.code).toBe('PT403');
  });

  it('nobody deletes a campaign row or edits the history: campaigns are soft-deleted, history is append-only', async () => {
    const id = await campaignIn(['active']);
    const remove = await asRole(sql, admin, (tx) => tx`delete from public.campaigns where id = ${id}`);
    expect(remove.error?.code).toBe('42501');
    const rewrite = await asRole(sql, admin, (tx) => tx`update public.campaign_status_history set changed_at = private.now() - interval '1 year'
                                                         where campaign_id = ${id}`);
    expect(rewrite.error?.code).toBe('42501');
    const forge = await asRole(sql, admin, (tx) => tx`insert into public.campaign_status_history (campaign_id, to_status, changed_by_role)
                                                       values (${id}, 'active', 'authenticated')`);
    expect(forge.error?.code).toBe('42501');
  });

  it('an admin cannot set the layer or move a campaign to another type: they come from the type at creation', async () => {
    const id = await campaignIn([]);
    const layer = await asRole(sql, admin, (tx) => tx`update public.campaigns set attribution_layer = 'site-wide' where id = ${id}`);
    expect(layer.error?.code).toBe('42501');
    const type = await asRole(sql, admin, (tx) => tx`update public.campaigns set campaign_type = 'anniversary_sale' where id = ${id}`);
    expect(type.error?.code).toBe('42501');
  });

  it('a customer does not see deleted campaigns; the anonymous role reads and calls nothing', async () => {
    const id = await campaignIn([]);
    await call(`campaigns/${id}`, { method: 'DELETE' });
    const seen = await asRole(sql, customer, (tx) => tx`select id from public.campaigns where id = ${id}`);
    expect(seen.result).toHaveLength(0);
    for (const query of [
      'select * from public.campaigns limit 1',
      'select * from public.campaign_status_history limit 1',
      'select * from public.campaign_overlap_calendar limit 1',
      `select public.calculate_campaign_attributions('2030-01-01')`,
    ]) {
      const { error } = await asRole(sql, anon, (tx) => tx.unsafe(query));
      expect(error?.code, query).toBe('42501');
    }
  });

  it("a campaign's recorded spend: administrators write it, signed-in callers read it, never negative, anon nothing", async () => {
    const id = await campaignIn(['active']);
    const [{ day }] = await sql`select start_date::text as day from public.campaigns where id = ${id}`;
    const byCustomer = await asRole(sql, customer, (tx) => tx`
      insert into public.campaign_spend (campaign_id, spend_date, amount) values (${id}, ${day}, 10)`);
    expect(byCustomer.error?.code).toBe('42501');
    const negative = await asRole(sql, admin, (tx) => tx`
      insert into public.campaign_spend (campaign_id, spend_date, amount) values (${id}, ${day}, -1)`);
    expect(negative.error?.constraint_name).toBe('campaign_spend_amount_not_negative');
    const seen = await asRole(sql, admin, async (tx) => {
      await tx`insert into public.campaign_spend (campaign_id, spend_date, amount) values (${id}, ${day}, 10)`;
      await tx`select set_config('request.jwt.claims', ${JSON.stringify(customer)}, true)`;
      const read = await tx`select amount from public.campaign_spend where campaign_id = ${id}`;
      const changed = await tx`update public.campaign_spend set amount = 0 where campaign_id = ${id} returning 1`;
      return { read: read.length, changed: changed.length };
    });
    expect(seen.result).toEqual({ read: 1, changed: 0 });
    const { error } = await asRole(sql, anon, (tx) => tx`select * from public.campaign_spend limit 1`);
    expect(error?.code).toBe('42501');
  });

  it('the exclusion constraint holds for direct writes: two overlapping active site-wide campaigns fail with 23P01', async () => {
    const start = freshDay();
    const a = await campaignIn([], { campaign_type: 'anniversary_sale', start_date: start, end_date: addDays(start, 3) });
    const b = await campaignIn([], { campaign_type: 'double_eleven', start_date: addDays(start, 3), end_date: addDays(start, 6) });
    const { error } = await asRole(sql, admin, (tx) => tx`update public.campaigns set status = 'active' where id in (${a}, ${b})`);
    expect(error?.code).toBe('23P01');
  });
});

describe("a budget's limit, written once", () => {
  it('is the most campaigns.budget holds, and the console form refuses no budget the API takes', async () => {
    const [{ max }] = await sql`
      select (10::numeric ^ (((atttypmod - 4) >> 16) - ((atttypmod - 4) & 65535))
              - 10::numeric ^ (-((atttypmod - 4) & 65535)))::numeric(20, 2)::text as max
      from pg_attribute where attrelid = 'public.campaigns'::regclass and attname = 'budget'`;
    expect(Number(max)).toBe(MAX_BUDGET);
    // The console once refused budgets over 9,999,999,999.99, an order's limit, while the API took them.
    const form = await readFile(new URL('../../console/src/screens/campaigns.tsx', import.meta.url), 'utf8');
    expect(form).toContain('checks.decimal(x.budget, 0, MAX_BUDGET)');
  });
});
