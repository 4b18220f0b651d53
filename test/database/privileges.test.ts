// What the API roles may do to each relation and function, compared with one expected table written out
// here. Supabase's default privileges grant `anon`, `authenticated` and `service_role` everything on every
// new table and sequence in `public`; the schema revokes what the project does not use, so a privilege
// below that is not in the table (TRUNCATE, TRIGGER, REFERENCES, MAINTAIN, a sequence's setval) is a hole:
// each of those bypasses RLS (TRUNCATE), runs the caller's code as the writer (TRIGGER) or breaks every
// later write (setval).
import { describe, expect, it } from 'vitest';
import { stockIn, createProduct, stockFigures } from '../support/inventory.ts';
import { asRole, database, DEMO_CUSTOMER_ID } from '../support/client.ts';

const sql = database();
const customer = { role: 'authenticated', sub: DEMO_CUSTOMER_ID } as const;
const anon = { role: 'anon' } as const;
const service = { role: 'service_role' } as const;

const ROLES = ['anon', 'authenticated', 'service_role'] as const;
const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER', 'MAINTAIN'];
const SEQUENCE_PRIVILEGES = ['USAGE', 'SELECT', 'UPDATE'];

const READ = 'SELECT';
const WRITE = 'SELECT INSERT UPDATE DELETE';
/** Read for signed-in callers and the service key; RLS decides which rows. */
const readOnly = { authenticated: READ, service_role: READ };
const readWrite = { authenticated: WRITE, service_role: WRITE };

/**
 * Every table, view and sequence in `public`, `private` and `health`, with what each API role holds on it at table
 * level. A relation or role left out holds nothing; `anon` holds nothing anywhere. Column grants are below.
 */
const EXPECTED: Record<string, Partial<Record<(typeof ROLES)[number], string>>> = {
  'private.campaign_active_spans': readOnly,
  'private.campaign_attribution_days': readOnly,
  'private.campaign_attribution_months': {},
  'private.campaign_attribution_pending': {},
  'private.customer_counted_orders': readOnly,
  'private.customer_order_figures': readOnly,
  'private.customer_scores': {},
  'private.function_requests': { service_role: READ },
  'private.function_requests_id_seq': {},
  'private.health_figure_changes': {},
  'private.health_figure_changes_by_10_minutes': {},
  'private.order_changes': readOnly,
  'private.order_changes_change_id_seq': {},
  'private.order_daily_revenue': readOnly,
  'private.order_daily_revenue_now': readOnly,
  'private.order_day_figures': readOnly,
  'private.rate_limit_windows': {},
  'private.shipped_order_costs': {},
  'public.attribution_layers': readOnly,
  'public.campaign_collaboration_analysis': readOnly,
  'public.campaign_overlap_calendar': readOnly,
  // Recorded by administrators and the store's jobs, read by every signed-in caller (RLS).
  'public.campaign_spend': readWrite,
  'public.campaign_stats': readOnly,
  'public.campaign_status_history': readOnly,
  'public.campaign_status_history_id_seq': {},
  // Types are deactivated, never deleted (docs/campaign-types.md).
  'public.campaign_type_config': { authenticated: 'SELECT INSERT UPDATE', service_role: 'SELECT INSERT UPDATE' },
  // Inserts and updates name their columns (below); soft-deleted, never removed.
  'public.campaigns': readOnly,
  'public.customers': readWrite,
  'public.idempotency_records': readOnly,
  'public.inventory_records': readOnly,
  // Lines are written only by public.place_order: what they hold of the stock must not drift.
  'public.order_line_lots': readOnly,
  'public.order_lines': readOnly,
  'public.order_status_moves': readOnly,
  'public.orders': readWrite,
  'public.product_stock': readOnly,
  'public.products': readOnly,
  'public.revenue_attribution_analysis': readOnly,
  'public.stock_adjust_reasons': readOnly,
  'public.stock_in_history': readOnly,
  'public.stock_movements': readOnly,
  'public.stock_movements_id_seq': {},
  'public.support_tickets': readWrite,
  // A role is granted or revoked, never edited; its policies are select, insert and delete.
  'public.user_roles': { authenticated: 'SELECT INSERT DELETE', service_role: 'SELECT INSERT DELETE' },
};

const CAMPAIGN_INSERT = 'attribution_weight budget campaign_type description end_date id name priority_score start_date target_audience';
const CAMPAIGN_UPDATE = 'attribution_weight budget deleted_at description end_date name priority_score start_date status target_audience';
const EXPECTED_COLUMNS: Record<string, string> = {
  'public.campaigns authenticated INSERT': CAMPAIGN_INSERT,
  'public.campaigns service_role INSERT': CAMPAIGN_INSERT,
  'public.campaigns authenticated UPDATE': CAMPAIGN_UPDATE,
  'public.campaigns service_role UPDATE': CAMPAIGN_UPDATE,
  'public.products authenticated INSERT': 'allocation id is_active name reorder_level sku',
  'public.products service_role INSERT': 'allocation id is_active name reorder_level sku',
  'public.products authenticated UPDATE': 'allocation deleted_at is_active name reorder_level sku',
  'public.products service_role UPDATE': 'allocation deleted_at is_active name reorder_level sku',
};

/** The functions `anon` can call: EXECUTE on the function and USAGE on its schema. */
const ANON_CALLABLE = ['health.business_health(text,boolean,boolean,boolean,text,integer,date,date,text,date,date)'];

describe('privileges of the API roles', () => {
  it('every relation × role × privilege in public, private and health is exactly the expected table: no unexpected grant', async () => {
    const relations = await sql<{ name: string; kind: string }[]>`
      select format('%s.%s', n.nspname, c.relname) as name, c.relkind::text as kind
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('public', 'private', 'health') and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
      order by 1`;
    expect(relations.map((r) => r.name)).toEqual(Object.keys(EXPECTED).sort());

    const held = await sql<{ name: string; role: string; privilege: string }[]>`
      select r.name, role, privilege
      from (select format('%s.%s', n.nspname, c.relname) as name, c.oid, c.relkind
            from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname in ('public', 'private', 'health') and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')) r
      cross join unnest(${ROLES as unknown as string[]}::text[]) role
      cross join lateral unnest(case when r.relkind = 'S' then ${SEQUENCE_PRIVILEGES}::text[]
                                     else ${TABLE_PRIVILEGES}::text[] end) privilege
      where case when r.relkind = 'S' then has_sequence_privilege(role, r.oid, privilege)
                 else has_table_privilege(role, r.oid, privilege) end`;
    const actual = Object.fromEntries(relations.map((r) => [r.name, {} as Record<string, string>]));
    for (const { name, role, privilege } of held) {
      actual[name][role] = [actual[name][role], privilege].filter(Boolean).join(' ');
    }
    const expected = Object.fromEntries(Object.entries(EXPECTED).map(([name, roles]) => [name, { ...roles }]));
    // The checked matrix: every relation × role × privilege; report it so the figure in docs/reliability.md
    // is the test's own.
    const checked = relations.reduce((n, r) => n + ROLES.length * (r.kind === 'S' ? SEQUENCE_PRIVILEGES : TABLE_PRIVILEGES).length, 0);
    expect(checked).toBeGreaterThan(500);
    expect(actual).toEqual(expected);
  });

  it('column grants are exactly the writable columns of campaigns and products', async () => {
    const rows = await sql<{ key: string; columns: string }[]>`
      select format('%s.%s %s %s', n.nspname, c.relname, a.grantee::regrole, a.privilege_type) as key,
             string_agg(att.attname, ' ' order by att.attname) as columns
      from pg_attribute att
      join pg_class c on c.oid = att.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      cross join lateral aclexplode(att.attacl) a
      where n.nspname in ('public', 'private') and att.attacl is not null
        and a.grantee in (select oid from pg_roles where rolname in ('anon', 'authenticated', 'service_role'))
      group by 1 order by 1`;
    expect(Object.fromEntries(rows.map((r) => [r.key, r.columns]))).toEqual(EXPECTED_COLUMNS);
  });

  it('the only function anon can call in public, private and health is business health', async () => {
    const rows = await sql<{ fn: string }[]>`
      select p.oid::regprocedure::text as fn
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ('public', 'private', 'health')
        and has_function_privilege('anon', p.oid, 'execute') and has_schema_privilege('anon', n.oid, 'usage')
      order by 1`;
    expect(rows.map((r) => r.fn)).toEqual(ANON_CALLABLE);
  });

  it('future tables and sequences in public get no TRUNCATE, TRIGGER, REFERENCES, MAINTAIN or sequence rights', async () => {
    const rows = await sql<{ kind: string; acl: string }[]>`
      select d.defaclobjtype::text as kind, d.defaclacl::text as acl
      from pg_default_acl d
      where d.defaclrole = current_user::regrole and d.defaclnamespace = 'public'::regnamespace
        and d.defaclobjtype in ('r', 'S')
      order by 1`;
    const byKind = Object.fromEntries(rows.map((r) => [r.kind, r.acl]));
    expect(byKind.r).toBe('{authenticated=arwd/postgres,service_role=arwd/postgres}');
    expect(byKind.S ?? '{}').toBe('{}');
  });
});

describe('what the over-broad grants allowed', () => {
  it('a customer cannot plant a trigger on stock_movements that would run as the table owner', async () => {
    const { error } = await asRole(sql, customer, async (tx) => {
      await tx`create function pg_temp.planted() returns trigger language plpgsql as $$ begin return null; end $$`;
      await tx`create trigger planted after insert on public.stock_movements for each row execute function pg_temp.planted()`;
    });
    expect(error?.code).toBe('42501');
  });

  it('anon cannot setval the ledger and history sequences, and no API role can truncate user_roles or orders', async () => {
    for (const seq of ['public.stock_movements_id_seq', 'public.campaign_status_history_id_seq']) {
      for (const caller of [anon, customer, service]) {
        const { error } = await asRole(sql, caller, (tx) => tx`select setval(${seq}, 1)`);
        expect(error?.code, `${caller.role} setval ${seq}`).toBe('42501');
      }
    }
    for (const table of ['public.user_roles', 'public.orders', 'public.customers', 'public.campaign_type_config']) {
      for (const caller of [anon, customer, service]) {
        const { error } = await asRole(sql, caller, (tx) => tx.unsafe(`truncate ${table} cascade`));
        expect(error?.code, `${caller.role} truncate ${table}`).toBe('42501');
      }
    }
    // Stock still moves: the stock functions never needed the API roles' sequence rights.
    const productId = await createProduct(sql);
    await stockIn(productId, 3);
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 3, sum_available: 3, sum_deltas: 3 });
  });
});
