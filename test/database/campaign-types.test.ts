// The catalogue's rules held by PostgreSQL itself: what a supabase-js client could try against the
// table directly, with no function in between.
import { describe, expect, it } from 'vitest';
import { asRole, database, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID, unique } from '../support/client.ts';

const sql = database();
const customer = { role: 'authenticated', sub: DEMO_CUSTOMER_ID } as const;
const admin = { role: 'authenticated', sub: DEMO_ADMIN_ID } as const;
const anon = { role: 'anon' } as const;

const newType = (overrides: Record<string, unknown> = {}) => ({
  type_code: unique('rls'),
  display_name_zh: '直',
  attribution_layer: 'general',
  ...overrides,
});

describe('row level security on campaign_type_config', () => {
  it('a customer session cannot insert a campaign type, even without the function', async () => {
    const { error } = await asRole(sql, customer, (tx) => tx`insert into public.campaign_type_config ${tx(newType())}`);
    expect(error?.code).toBe('42501');
    expect(error?.message).toMatch(/row-level security/);
  });

  it('a customer session cannot change a campaign type', async () => {
    const { result } = await asRole(
      sql,
      customer,
      (tx) => tx`update public.campaign_type_config set default_weight = 0 where type_code = 'anniversary_sale' returning 1`,
    );
    expect(result).toHaveLength(0);
  });

  it('a customer cannot promote themselves to administrator', async () => {
    const { error } = await asRole(sql, customer, (tx) => tx`insert into public.user_roles (user_id, role) values (${DEMO_CUSTOMER_ID}, 'admin')`);
    expect(error?.code).toBe('42501');
  });

  it('a customer calling the write function directly gets the 403 the function gives', async () => {
    const { error } = await asRole(sql, customer, (tx) => tx`select public.create_campaign_type(${tx.json(newType())})`);
    expect(error?.code).toBe('PT403');
    expect(error?.message).toBe('INSUFFICIENT_PERMISSION');
  });

  it('the anonymous role reads nothing and writes nothing', async () => {
    const read = await asRole(sql, anon, (tx) => tx`select * from public.campaign_type_config`);
    expect(read.error?.code).toBe('42501');
    const write = await asRole(sql, anon, (tx) => tx`insert into public.campaign_type_config ${tx(newType())}`);
    expect(write.error?.code).toBe('42501');
    const rpc = await asRole(sql, anon, (tx) => tx`select public.create_campaign_type(${tx.json(newType())})`);
    expect(rpc.error?.code).toBe('42501');
  });

  it('nobody deletes a campaign type: they are deactivated, never removed', async () => {
    for (const caller of [admin, { role: 'service_role' } as const]) {
      const { error } = await asRole(sql, caller, (tx) => tx`delete from public.campaign_type_config where type_code = 'anniversary_sale'`);
      expect(error?.code).toBe('42501');
    }
  });

  it('an admin session writes directly, and the database keeps updated_at', async () => {
    const type = newType();
    const { result, error } = await asRole(sql, admin, async (tx) => {
      const [created] = await tx`insert into public.campaign_type_config ${tx(type)} returning updated_at`;
      await tx`select pg_sleep(0.01)`;
      // A client cannot backdate updated_at: the trigger overwrites it.
      const [updated] = await tx`update public.campaign_type_config set default_priority = 1, updated_at = '2000-01-01'
                                 where type_code = ${type.type_code} returning updated_at`;
      return { created, updated };
    });
    expect(error).toBeUndefined();
    expect(result!.updated.updated_at.getFullYear()).not.toBe(2000);
  });
});

describe('constraints on campaign_type_config', () => {
  it("bound a priority by private.max_priority(), the limit zod and the console read, a type's and a campaign's alike", async () => {
    const rows = await sql`
      select c.conname, pg_get_constraintdef(c.oid) as definition, private.max_priority() as max
      from pg_constraint c
      where c.conname in ('campaign_type_config_default_priority_range', 'campaigns_priority_score_range')
      order by c.conname`;
    expect(rows.map((r) => r.conname)).toEqual(['campaign_type_config_default_priority_range', 'campaigns_priority_score_range']);
    for (const row of rows) expect(row.definition, row.conname).toMatch(new RegExp(`>= 0\\) AND \\(\\w+ <= ${row.max}\\)`));
  });

  it.each([
    // numeric(3,2) itself overflows at 10, before the check is reached.
    [{ default_weight: 10 }, '22003', undefined],
    [{ default_weight: -1 }, '23514', 'campaign_type_config_default_weight_range'],
    [{ default_priority: 101 }, '23514', 'campaign_type_config_default_priority_range'],
    [{ type_code: 'Upper_Case' }, '23514', 'campaign_type_config_type_code_format'],
    [{ type_code: `a${'b'.repeat(50)}` }, '23514', 'campaign_type_config_type_code_format'],
  ])('refuse %j whoever writes it', async (overrides, code, constraint) => {
    const { error } = await asRole(sql, { role: 'service_role' }, (tx) => tx`insert into public.campaign_type_config ${tx(newType(overrides))}`);
    expect(error?.code).toBe(code);
    expect(error?.constraint_name).toBe(constraint);
  });

  it('refuse an attribution layer outside the four', async () => {
    const { error } = await asRole(sql, { role: 'service_role' }, (tx) =>
      tx`insert into public.campaign_type_config ${tx(newType({ attribution_layer: 'everywhere' }))}`);
    expect(error?.code).toBe('22P02');
  });
});
