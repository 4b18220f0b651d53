// The parts of the benchmark data set that seed:demo does not make: products with lots, written through
// public.stock_in itself (as the service role) so the ledger and the stock agree from the start.
import postgres from 'postgres';

export async function generateInventory(url, { products, lotsPerProduct }) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`
        insert into public.products (id, sku, name)
        select md5('bench:product:' || i)::uuid, 'BENCH-' || lpad(i::text, 6, '0'), 'Bench product ' || i
        from generate_series(1, ${products}::int) i
        on conflict do nothing`;
      await tx`select set_config('role', 'service_role', true),
                      set_config('request.jwt.claims', '{"role":"service_role"}', true)`;
      await tx`
        select public.stock_in(
          product_id => p.id,
          quantity => 50 + (lot * 37 + i) % 200,
          source => 'purchase_order',
          received_at => private.now() - make_interval(days => 90 - lot * 20)
        )
        from generate_series(1, ${products}::int) i
        cross join generate_series(1, ${lotsPerProduct}::int) lot
        join public.products p on p.id = md5('bench:product:' || i)::uuid
        where not exists (select 1 from public.inventory_records r where r.product_id = p.id)
        order by lot, i`;
    });
  } finally {
    await sql.end();
  }
}

/**
 * The stock invariants, for every product: never negative, the lots add up to the product's stock, and
 * the ledger's deltas add up to it too. Returns the number of products breaking any of them.
 */
export async function stockInvariantViolations(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`
      with lots as (
        select product_id, sum(available_quantity) as available, min(available_quantity) as lowest
        from public.inventory_records group by product_id
      ), ledger as (
        select product_id, sum(delta) as total from public.stock_movements group by product_id
      )
      select count(*) filter (where p.current_stock < 0 or coalesce(l.lowest, 0) < 0
                                 or p.current_stock <> coalesce(l.available, 0)
                                 or p.current_stock <> coalesce(g.total, 0))::int as violations,
             count(*)::int as products
      from public.products p
      left join lots l on l.product_id = p.id
      left join ledger g on g.product_id = p.id`;
    return row;
  } finally {
    await sql.end();
  }
}

const SEARCH_WORDS = [
  'spring',
  'summer',
  'autumn',
  'winter',
  'tea',
  'coffee',
  'vip',
  'member',
  'flash',
  'bundle',
  'brand',
  'launch',
];

/**
 * Campaigns for the list/search, attribution and metrics scenarios: `total` campaigns over the last two
 * years in the two audience and category layers, of which `activeToday` are active today (attribution
 * for today weighs them all) and one in ten of the rest ran and completed in the past. The status
 * history is written with its past timestamps, as the demo seed does, with triggers off for the load.
 */
export async function generateCampaigns(url, { total, activeToday }) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`select set_config('session_replication_role', 'replica', true)`;
      await tx`
        with types as (
          select array_agg(type_code order by type_code) as codes
          from public.campaign_type_config
          where attribution_layer in ('target-oriented', 'category-specific') and is_active
        ), planned as (
          select i, md5('bench:campaign:' || i)::uuid as id,
                 (select codes[1 + i % array_length(codes, 1)] from types) as campaign_type,
                 case when i <= ${activeToday} then 'active' when i % 10 = 0 then 'completed' else 'draft' end as status,
                 case when i <= ${activeToday} then private.store_today() - (i % 30) else private.store_today() - 730 + (i % 700) end as start_date
          from generate_series(1, ${total}::int) i
        )
        insert into public.campaigns (id, name, description, status, start_date, end_date, budget, campaign_type,
          attribution_layer, attribution_weight, priority_score, created_at, updated_at)
        select p.id,
               format('Bench %s %s campaign %s', (${SEARCH_WORDS}::text[])[1 + p.i % ${SEARCH_WORDS.length}],
                      (${SEARCH_WORDS}::text[])[1 + (p.i / 7) % ${SEARCH_WORDS.length}], p.i),
               'Generated for the benchmarks',
               p.status::public.campaign_status, p.start_date,
               case when p.status = 'active' then private.store_today() + 1 + p.i % 20 else p.start_date + 3 + p.i % 20 end,
               1000 + p.i % 50000, p.campaign_type, t.attribution_layer, t.default_weight, t.default_priority,
               private.store_day_start(p.start_date - 7), private.now()
        from planned p
        join public.campaign_type_config t on t.type_code = p.campaign_type
        on conflict (id) do nothing`;
      await tx`
        insert into public.campaign_status_history (campaign_id, from_status, to_status, changed_at, changed_by_role)
        select c.id, m.from_status::public.campaign_status, m.to_status::public.campaign_status, m.changed_at, 'service_role'
        from public.campaigns c
        cross join lateral (values
          (null, 'draft', c.created_at),
          ('draft', 'active', private.store_day_start(c.start_date)),
          ('active', 'completed', private.store_day_start(c.end_date) + interval '23 hours')
        ) as m(from_status, to_status, changed_at)
        where c.description = 'Generated for the benchmarks'
          and (m.to_status = 'draft' or c.status <> 'draft')
          and (m.to_status <> 'completed' or c.status = 'completed')
          and not exists (select 1 from public.campaign_status_history h where h.campaign_id = c.id)`;
    });
  } finally {
    await sql.end();
  }
}
