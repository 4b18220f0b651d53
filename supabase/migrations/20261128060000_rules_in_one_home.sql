-- Issue 45: every rule in one named home. The campaign triggers are written out in their schema file
-- (40_campaigns/32_attribution_days.sql) rather than created by a helper, so the triggers already in place
-- stay; the helper goes.
drop function if exists private.keep_derived_data(regclass, text, regproc);
-- RFM of the customers with a counted order (not refunded, not cancelled before `as_of`) in the window:
-- how many, their average score (R + F + M) / 3 (private.health_average_rfm_score), and how many have
-- two orders or more in the 365 days before `as_of`. The average is the one `avg` computes over the
-- customers' scores, each (R + F + M) / 3 as numeric, to the last digit.
create or replace function private.health_window_customer_figures(as_of timestamptz, days integer)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint)
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
declare
  boundary timestamptz := private.health_boundary(as_of);
  lo timestamptz := least(boundary, as_of);
  hi timestamptz := greatest(boundary, as_of);
begin
  return query
  with
  -- Every customer whose state may change between the boundary and `as_of`, [lo, hi): an order placed then, or
  -- as many days before as a window of private.rfm_bands spans (its recency bands, 3, 7, 14 and 30 days, the
  -- scored 90 and the year's 365), or cancelled then. The windows are written out, each its own range of the
  -- orders' index: read from rfm_bands() through a join, the planner knew no range's bounds and read 100 ms of
  -- orders for a 7-day report instead of 2 (test/database/business-health-formulas.test.ts holds them to it).
  stepping as (
      select o.customer_id from public.orders o
      where o.ordered_at >= lo and o.ordered_at < hi
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '72 hours' and o.ordered_at < hi - interval '72 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '168 hours' and o.ordered_at < hi - interval '168 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '336 hours' and o.ordered_at < hi - interval '336 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '720 hours' and o.ordered_at < hi - interval '720 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '2160 hours' and o.ordered_at < hi - interval '2160 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '8760 hours' and o.ordered_at < hi - interval '8760 hours'
      union
      select o.customer_id from public.orders o where o.cancelled_at >= lo and o.cancelled_at < hi
  ),
  -- Their states (private.health_rfm_state_figures) as of `as_of` (+1) and as of the boundary (−1), from the
  -- kept states: the state of the last change before each moment.
  states as (
    select x.sign, coalesce(c.states[case when cardinality(c.changed_at) = 0 then 0
                                          else width_bucket(x.t - interval '1 microsecond', c.changed_at) end], 0) as state
    from stepping s
    join private.customer_scores c on c.customer_id = s.customer_id
    cross join (values (as_of, 1), (boundary, -1)) x(t, sign)
  ),
  change as (
    select coalesce(sum(s.sign * x.customers), 0) as customers,
           coalesce(sum(s.sign * x.score_sum), 0) as score_sum,
           coalesce(sum(s.sign * x.scores_1_mod_3), 0) as scores_1_mod_3,
           coalesce(sum(s.sign * x.scores_2_mod_3), 0) as scores_2_mod_3,
           coalesce(sum(s.sign * x.scores_of_3), 0) as scores_of_3,
           coalesce(sum(s.sign * x.repeat_customers), 0) as repeat_customers
    from states s
    join private.health_rfm_state_figures() x on x.state = s.state and x.days = health_window_customer_figures.days
  ),
  totals as (
    select f.customers + c.customers as customers,
           f.score_sum + c.score_sum as score_sum,
           f.scores_1_mod_3 + c.scores_1_mod_3 as scores_1_mod_3,
           f.scores_2_mod_3 + c.scores_2_mod_3 as scores_2_mod_3,
           f.scores_of_3 + c.scores_of_3 as scores_of_3,
           f.repeat_customers + c.repeat_customers as repeat_customers
    from private.health_figures_before(days, boundary) f, change c
  )
  -- avg's own arithmetic: the sum of the customers' scores / 3, each to 16 decimals (3 / 3 to 20), divided
  -- by their number
  select t.customers,
         round(((t.score_sum - t.scores_1_mod_3 - 2 * t.scores_2_mod_3) / 3)::numeric
               + t.scores_1_mod_3 * 0.3333333333333333 + t.scores_2_mod_3 * 0.6666666666666667,
               case when t.scores_of_3 > 0 then 20 else 16 end) / nullif(t.customers, 0),
         t.repeat_customers
  from totals t;
end
$$;

-- An order version: the columns of an order the analytics read, listed here once. The change log's rows are
-- versions (below, in this order after their sign), and the trigger and the refold take them from orders
-- through this function, so a column the analytics start reading is added here and to the log's table. No
-- `set search_path` (nothing in it needs one): PostgreSQL inlines it into the statement that reads it, which
-- then costs what the columns written out would (private.now() in 00_platform_helpers.sql says why it matters).
create or replace function private.order_version(o public.orders)
returns table (
  order_id uuid, customer_id uuid, status text, total_amount numeric(12, 2), ordered_at timestamptz,
  order_date date, promised_at timestamptz, delivered_at timestamptz, completed_at timestamptz,
  cancelled_at timestamptz, counted_until timestamptz
)
language sql immutable parallel safe as $$
  select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at, o.delivered_at,
         o.completed_at, o.cancelled_at, o.counted_until
$$;

revoke execute on function private.order_version(public.orders) from public, anon, authenticated;

-- Statement-level, over the transition tables, so a bulk write appends in one statement. Security definer
-- because order writers (administrators, the store's jobs) have no rights on `private`.
create or replace function private.log_order_changes()
returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into private.order_changes overriding user value
    select null::bigint, 1, v.* from new_rows n cross join lateral private.order_version(n) v;
  elsif tg_op = 'UPDATE' then
    -- An update of columns the analytics do not read (a payment time, updated_at) appends nothing: the
    -- versions that did not change cancel out.
    insert into private.order_changes overriding user value
    with old_versions as (select v.* from old_rows o cross join lateral private.order_version(o) v),
         new_versions as (select v.* from new_rows n cross join lateral private.order_version(n) v)
    select null::bigint, -1, c.* from (table old_versions except all table new_versions) c
    union all
    select null::bigint, 1, c.* from (table new_versions except all table old_versions) c;
  elsif tg_op = 'DELETE' then
    insert into private.order_changes overriding user value
    select null::bigint, -1, v.* from old_rows o cross join lateral private.order_version(o) v;
  else
    truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
      private.health_figure_changes_by_10_minutes, private.customer_scores, private.order_day_figures,
      private.customer_order_figures, private.customer_counted_orders;
  end if;
  return null;
end
$$;

-- Everything the analytics keep of orders, rebuilt from the orders as they are: the log and the kept
-- figures emptied, every order appended once, and folded. For an operator who doubts them, and the tests
-- that hold the kept figures equal to a full recompute. Order writes wait while it runs.
create or replace function private.refold_all_orders()
returns bigint
language plpgsql security definer set search_path = '' as $$
begin
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes'));
  lock table public.orders in share mode;
  truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
    private.health_figure_changes_by_10_minutes, private.customer_scores, private.order_day_figures,
    private.customer_order_figures, private.customer_counted_orders;
  insert into private.order_changes overriding user value
  select null::bigint, 1, v.* from public.orders o cross join lateral private.order_version(o) v;
  return private.fold_order_changes(true);
end
$$;


-- The health report's periods, comparisons, dimensions and trend directions as enum types (50_health/05_periods_and_dimensions.sql), and every list of them in SQL read from there.

-- The report's periods: the seeds' rolling windows, each named by its days ('7d': the 7 days of 24 hours
-- ending now), and version 2.0's custom stretch of store days.
create type public.health_period as enum ('7d', '30d', '90d', 'custom');

-- What a custom period is compared with: the as many days before it, the same days a year before, or others.
create type public.health_comparison as enum ('previous', 'last_year', 'custom');

-- The dimensions the report scores 0-10, in its order.
create type public.health_dimension as enum (
  'revenue', 'satisfaction', 'fulfillment', 'support', 'products', 'marketing', 'system'
);

-- The week trend's direction, in the seeds' words: up, down, level.
create type public.trend_direction as enum ('上升', '下降', '持平');

-- The rolling periods' lengths in days, from their names: the windows the figures are kept for
-- (30_figure_changes.sql).
create or replace function private.health_window_days()
returns smallint[]
language sql immutable parallel safe set search_path = '' as $$
  select array_agg(pg_catalog.rtrim(p::text, 'd')::smallint order by p)
  from unnest(pg_catalog.enum_range(null::public.health_period)) p
  where p <> 'custom'
$$;

-- The days of a rolling period's name; null for any other text, 'custom' included.
create or replace function private.health_period_days(period text)
returns integer
language sql immutable parallel safe set search_path = '' as $$
  select pg_catalog.rtrim(p::text, 'd')::integer
  from unnest(pg_catalog.enum_range(null::public.health_period)) p
  where p::text = period and p <> 'custom'
$$;

-- The periods a version of the report takes, as its refusals list them: 1.0 the rolling ones, 2.0 custom too.
create or replace function private.health_periods(version integer)
returns jsonb
language sql immutable parallel safe set search_path = '' as $$
  select jsonb_agg(p order by p)
  from unnest(pg_catalog.enum_range(null::public.health_period)) p
  where version >= 2 or p <> 'custom'
$$;

revoke execute on function private.health_window_days(), private.health_period_days(text),
  private.health_periods(integer) from public, anon, authenticated;

-- A customer's RFM state is one number: 0 when they are scored in no window (no counted order in the
-- scored days); else 25 × R + 5 × (F − 1) + (M − 1), by the bands above. The walk computes it from the
-- customer's counts (spend in cents); test/database/business-health-rollups.test.ts holds every band edge
-- against the formula. This is what a state adds to each window's customer figures: a customer is in a
-- window's population when their last counted order lies within it, that is when R is at least 5 less the
-- recency bands shorter than the window (7 days: R ≥ 4, 30: R ≥ 2, 90: R ≥ 1). PL/pgSQL, as every function
-- the fold calls: PostgreSQL 17 plans a SQL function that is not inlined again on every call (0.5 ms
-- here), PL/pgSQL once per session.
create or replace function private.health_rfm_state_figures()
returns table (
  state integer, days smallint, customers integer, score_sum integer, scores_1_mod_3 integer,
  scores_2_mod_3 integer, scores_of_3 integer, repeat_customers integer
)
language plpgsql immutable parallel safe set search_path = '' as $$
begin
  return query
    select s.state, w.days, 1, s.score, (s.score % 3 = 1)::integer, (s.score % 3 = 2)::integer,
           (s.score = 3)::integer, (s.frequency > 1)::integer
    from (select g.state, g.state / 25 as recency, (g.state / 5) % 5 + 1 as frequency,
                 g.state / 25 + (g.state / 5) % 5 + 1 + g.state % 5 + 1 as score
          from generate_series(25, 149) g(state)) s
    join (select w.days, 5 - (select count(*) from unnest(b.recency_band_days) d where d < w.days) as lowest_recency
          from unnest(private.health_window_days()) w(days), private.rfm_bands() b) w
      on s.recency >= w.lowest_recency;
end
$$;

-- The order figures' steps of a batch of the change log: each order's are its own, so this reads nothing
-- but the changes given. One row per moment of an order and window length, a column per figure (the
-- table's).
create or replace function private.order_figure_steps(changes private.order_changes[])
returns table (
  at timestamptz, days smallint, orders integer, completed integer, cancelled integer, due integer,
  on_time integer, revenue numeric, previous_revenue numeric, revenue_orders integer, previous_revenue_orders integer
)
language plpgsql stable set search_path = '' set work_mem = '256MB' as $$
begin
  return query
  with
  order_inputs as (select * from private.order_figure_inputs(changes)),
  -- Per window length (7, 30 and 90 days of 24 hours): the window's end for this order (ordered_at + the
  -- length), whether the order becomes due in it (promised before the end and the cancellation), and whether
  -- it counts in the next window's previous revenue.
  order_windows as materialized (
    select i.*, w.days, i.ordered_at + w.span as window_end, i.ordered_at + 2 * w.span as previous_end,
           i.counted_until > i.ordered_at as counted,
           i.promised_at is not null
             and greatest(i.ordered_at, i.promised_at) < least(i.ordered_at + w.span, i.cancelled_at) as due,
           i.counted_until > i.ordered_at + w.span as previous
    from order_inputs i
    cross join (select d, make_interval(hours => 24 * d) from unnest(private.health_window_days()) d) w(days, span)
  ),
  -- Each figure is 1 (or the amount) for T in an interval (start, end], so +sign at its start and −sign at
  -- its end.
  order_steps (at, days, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
               previous_revenue_orders) as (
    -- ordered: in the window, and counted until the cancellation
    select o.ordered_at, o.days, o.sign, 0, 0, 0, 0, case when o.counted then o.sign * o.total_amount else 0 end,
           0, case when o.counted then o.sign else 0 end, 0
    from order_windows o
    union all
    -- completed
    select greatest(o.ordered_at, o.completed_at), o.days, 0, o.sign, 0, 0, 0, 0, 0, 0, 0
    from order_windows o
    where o.completed_at < o.window_end
    union all
    -- cancelled: no longer due nor counted
    select greatest(o.ordered_at, o.cancelled_at), o.days, 0, 0, o.sign,
           case when o.due then -o.sign else 0 end,
           case when o.due and o.delivered_on_time then -o.sign else 0 end,
           case when o.counted then -o.sign * o.total_amount else 0 end, 0,
           case when o.counted then -o.sign else 0 end, 0
    from order_windows o
    where o.cancelled_at < o.window_end
    union all
    -- promised: due
    select greatest(o.ordered_at, o.promised_at), o.days, 0, 0, 0, o.sign,
           case when o.delivered_on_time then o.sign else 0 end, 0, 0, 0, 0
    from order_windows o
    where o.due
    union all
    -- the window's length later: out of the window, into the one after it as its previous window
    select o.window_end, o.days, -o.sign, case when o.completed_at < o.window_end then -o.sign else 0 end,
           case when o.cancelled_at < o.window_end then -o.sign else 0 end,
           case when o.due and not coalesce(o.cancelled_at < o.window_end, false) then -o.sign else 0 end,
           case when o.due and o.delivered_on_time and not coalesce(o.cancelled_at < o.window_end, false)
                then -o.sign else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.window_end, false)
                then -o.sign * o.total_amount else 0 end,
           case when o.previous then o.sign * o.total_amount else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.window_end, false) then -o.sign else 0 end,
           case when o.previous then o.sign else 0 end
    from order_windows o
    union all
    -- out of that previous window (or cancelled)
    select least(o.previous_end, o.cancelled_at), o.days, 0, 0, 0, 0, 0, 0, -o.sign * o.total_amount, 0, -o.sign
    from order_windows o
    where o.previous
  )
  select s.at, s.days, s.orders::integer, s.completed::integer, s.cancelled::integer, s.due::integer,
         s.on_time::integer, s.revenue::numeric, s.previous_revenue::numeric, s.revenue_orders::integer,
         s.previous_revenue_orders::integer
  from order_steps s;
end
$$;

-- Seed 03 TrendAnalysis. The direction is decided on the unrounded average (exactly 2 is 持平); the
-- figures are rounded to 2 decimals afterwards.
create or replace function private.health_trend(customer_change numeric, operational_change numeric)
returns jsonb
language sql immutable parallel safe set search_path = '' as $$
  select jsonb_build_object(
    'direction', case when avg_change > 2 then '上升'::public.trend_direction
                      when avg_change < -2 then '下降'::public.trend_direction
                      else '持平'::public.trend_direction end,
    'change', round(abs(avg_change), 2),
    'description', case
      when avg_change > 2 then '業務表現持續改善'
      when avg_change < -2 then '需要關注業務指標下滑'
      else '業務表現穩定'
    end,
    'customerChange', round(customer_change, 2),
    'operationalChange', round(operational_change, 2)
  )
  from (select (customer_change + operational_change) / 2 as avg_change) a
$$;

-- The custom period a request names, checked, and the period it is compared with: `from` to `to` against
-- `previous` (as many days just before; the default), `last_year` (the same dates a year before: 29 February
-- a year on is 28 February) or `custom` (compare_from to compare_to, checked alike).
create or replace function private.health_custom_days(
  from_day date, to_day date, compare text, compare_from date, compare_to date,
  out first_day date, out last_day date, out compare_first date, out compare_last date
)
language plpgsql stable set search_path = '' as $$
begin
  perform private.health_check_days(from_day, to_day, 'from', 'to');
  if coalesce(compare, 'previous') <> all (enum_range(null::public.health_comparison)::text[]) then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid comparison', jsonb_build_object(
      'parameter', 'compare', 'provided', compare, 'expected', to_jsonb(enum_range(null::public.health_comparison))));
  end if;
  if compare = 'custom' then
    perform private.health_check_days(compare_from, compare_to, 'compare_from', 'compare_to');
  end if;
  first_day := from_day;
  last_day := to_day;
  compare_first := case coalesce(compare, 'previous')
    when 'previous' then from_day - (to_day - from_day + 1)
    when 'last_year' then (from_day - interval '1 year')::date
    else compare_from end;
  compare_last := case coalesce(compare, 'previous')
    when 'previous' then from_day - 1
    when 'last_year' then (to_day - interval '1 year')::date
    else compare_to end;
end
$$;

-- The report's metrics, each rounded to 2 decimals, once every one is found on its scale (0-10) and the
-- overall score on its own (0-100): a score outside means a formula or its data went wrong, and the report
-- refuses to answer with it (CALCULATION_ERROR, stage `validation`).
create or replace function private.health_checked_metrics(metrics jsonb, overall numeric)
returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  field text;
  value numeric;
begin
  -- Every dimension, and nothing else.
  if array(select k from jsonb_object_keys(metrics) k order by k)
     is distinct from array(select d::text from unnest(enum_range(null::public.health_dimension)) d order by 1) then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', 'validation', 'reason', 'the metrics are not the dimensions'));
  end if;
  for field, value in select j.key, (j.value #>> '{}')::numeric from jsonb_each(metrics) j loop
    if value is not null and not (value between 0 and 10) then
      perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
        jsonb_build_object('stage', 'validation', 'reason', format('metrics.%s is %s, outside 0-10', field, value)));
    end if;
  end loop;
  if not (overall between 0 and 100) then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', 'validation', 'reason', format('overallScore is %s, outside 0-100', overall)));
  end if;
  return (select jsonb_object_agg(j.key, case when j.value = 'null'::jsonb then j.value
                                              else to_jsonb(round((j.value #>> '{}')::numeric, 2)) end)
          from jsonb_each(metrics) j);
end
$$;

-- `language`: the words' language, the seeds' Traditional Chinese unless English (`en`) is asked for; the
-- numbers and codes are the same in both. `version` 2 scores marketing (45_marketing.sql), says how in
-- `marketingDetails` and adds the campaigns' insights, naming them `with_names`; version 1 is the seeds'
-- report, marketing 0.
create or replace function private.health_report(
  period text,
  include_system boolean,
  include_trends boolean,
  include_insights boolean,
  as_of timestamptz,
  language text default 'zh-TW',
  version integer default 1,
  with_names boolean default false,
  first_day date default null,
  last_day date default null,
  compare_first date default null,
  compare_last date default null
)
returns jsonb
language plpgsql stable set search_path = '' as $$
declare
  days integer := case when period <> 'custom' then private.health_period_days(period)
                       when version >= 2 then last_day - first_day + 1 end;
  -- The window's instants and those of the one it is compared with, and the store days marketing reads.
  window_from timestamptz; window_before timestamptz; compare_from timestamptz; compare_before timestamptz;
  marketing_first date; marketing_last date;
  stage text := 'parameters';
  o record;
  c record;
  t record;
  p record;
  sys_requests bigint;
  sys_failures bigint;
  sys_success numeric; sys_p95 numeric; sys_connections numeric;
  metrics jsonb;
  customer_quality numeric;
  operational_efficiency numeric;
  support_effectiveness numeric;
  overall numeric;
  result jsonb;
  trend jsonb;
  marketing jsonb;
  marketing_score numeric := 0;
begin
  if days is null then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid period', jsonb_build_object(
      'parameter', 'period', 'provided', period,
      'expected', private.health_periods(version)));
  end if;

  if period = 'custom' then
    -- Store days (55_custom_periods.sql): orders as they are now, customers scored at each window's end.
    select ws.first_at, ws.before_at, cs.first_at, cs.before_at, first_day, last_day
    into window_from, window_before, compare_from, compare_before, marketing_first, marketing_last
    from private.health_days_span(first_day, last_day, as_of) ws, private.health_days_span(compare_first, compare_last, as_of) cs;
    stage := 'orders'; select * into o from private.health_custom_order_figures(first_day, last_day, compare_first,
                                                                                   compare_last, as_of);
    stage := 'customers'; select * into c from private.health_custom_customer_figures(window_from, window_before,
                                                                                       compare_from, compare_before);
    stage := 'tickets'; select * into t from private.health_span_ticket_figures(window_from, window_before, as_of);
    stage := 'products'; select * into p from private.health_span_product_figures(window_from, window_before, as_of);
  else
    stage := 'orders'; select * into o from private.health_order_figures(as_of, days);
    stage := 'customers'; select * into c from private.health_customer_figures(as_of, days);
    stage := 'tickets'; select * into t from private.health_ticket_figures(as_of, days);
    stage := 'products'; select * into p from private.health_product_figures(as_of, days);
  end if;
  if include_system then
    stage := 'system';
    select f.requests, f.failures, f.success_rate, f.p95_ms, f.connection_usage
      into sys_requests, sys_failures, sys_success, sys_p95, sys_connections
    from private.health_system_figures(as_of) f;
  end if;

  stage := 'scores';
  customer_quality := coalesce(c.average_rfm / 5 * 100, 0);
  operational_efficiency := coalesce(o.completed::numeric / nullif(o.orders, 0) * 100, 0);
  support_effectiveness := case when t.tickets = 0 then 0
    else (t.resolved::numeric / t.tickets * 0.7 + t.response_score * 0.3) * 100 end;
  overall := (customer_quality + operational_efficiency + support_effectiveness) / 3;
  if version >= 2 then
    stage := 'marketing';
    if period <> 'custom' then
      select as_of - make_interval(hours => 24 * days), as_of, as_of - make_interval(hours => 48 * days),
             as_of - make_interval(hours => 24 * days), d.first_day, d.last_day
      into window_from, window_before, compare_from, compare_before, marketing_first, marketing_last
      from private.marketing_days(as_of, days) d;
    end if;
    marketing := private.health_marketing_figures(marketing_first, marketing_last, with_names);
    marketing_score := private.health_marketing_metric(marketing);
  end if;

  metrics := jsonb_build_object(
    'revenue', private.health_revenue_score(o.revenue, o.previous_revenue),
    'satisfaction', private.health_satisfaction_score(t.average_rating, t.resolved::numeric / nullif(t.tickets, 0)),
    'fulfillment', private.health_fulfillment_score(
      o.completed::numeric / nullif(o.orders, 0), o.on_time::numeric / nullif(o.due, 0)),
    'support', support_effectiveness / 10,
    'products', private.health_products_score(p.in_stock_share, p.sold_share),
    'marketing', marketing_score,
    'system', case when include_system then private.health_system_score(sys_success, sys_p95, sys_connections) end
  );

  stage := 'validation';
  result := jsonb_build_object(
    'metrics', private.health_checked_metrics(metrics, overall),
    'scoreDetails', jsonb_build_object(
      'customerQuality', round(customer_quality, 2),
      'operationalEfficiency', round(operational_efficiency, 2),
      'supportEffectiveness', round(support_effectiveness, 2),
      'overallScore', round(overall, 2),
      'rating', private.health_word(private.health_rating(overall), language)
    )
  );

  if version >= 2 then
    result := result || jsonb_build_object(
      'marketingDetails', private.health_marketing_details(marketing, marketing_first, marketing_last, language),
      'window', private.health_window(period, window_from, window_before, compare_from, compare_before));
  end if;

  if include_trends then
    stage := 'trends';
    -- A custom period's trend is the period against the one it is compared with (the records differ by period).
    if period = 'custom' then
      trend := private.health_trend(
        private.health_percent_change(customer_quality, coalesce(c.previous_average_rfm / 5 * 100, 0)),
        private.health_percent_change(operational_efficiency,
                                      coalesce(o.previous_completed::numeric / nullif(o.previous_orders, 0) * 100, 0)));
    else trend := private.health_week_trend(as_of, c.week_average_rfm, o.week_completed, o.week_orders); end if;
    result := result || jsonb_build_object('trends', trend || jsonb_build_object(
      'description', private.health_word(trend ->> 'description', language)));
  end if;

  if include_insights then
    stage := 'insights';
    result := result || jsonb_build_object('insights',
      -- Every figure the rules read, by the names of the figure functions' columns.
      private.health_insights(to_jsonb(o) || to_jsonb(c) || to_jsonb(t) || to_jsonb(p) || jsonb_build_object(
        'days', days, 'include_system', include_system, 'language', language, 'custom', period = 'custom',
        'revenue_score', (metrics ->> 'revenue')::numeric,
        'customer_quality', customer_quality, 'overall', overall,
        'system_requests', sys_requests, 'system_failures', sys_failures, 'system_p95_ms', sys_p95,
        'version', version, 'marketing', marketing)));
  end if;

  return result;
exception
  when data_exception then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', stage, 'reason', sqlerrm));
end
$$;

-- The figures behind the scores (private.health_period_figures), for administrators and the service key
-- only: they are amounts, which the report, open to anyone, never carries. Folded first, as the report is.
create or replace function health.business_figures(
  period text,
  from_day date default null,
  to_day date default null,
  compare text default null,
  compare_from date default null,
  compare_to date default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  days integer := private.health_period_days(period);
  first_day date;
  last_day date;
  compare_first date;
  compare_last date;
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to see the figures');
  end if;
  if days is null and period is distinct from 'custom' then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid period', jsonb_build_object(
      'parameter', 'period', 'provided', period, 'expected', private.health_periods(2)));
  end if;
  if period = 'custom' then
    select * into first_day, last_day, compare_first, compare_last
    from private.health_custom_days(from_day, to_day, compare, compare_from, compare_to);
  end if;
  perform private.fold_order_changes(true);
  return jsonb_build_object('period', period, 'as_of', private.api_timestamp(private.now()))
    || case when period = 'custom'
         then private.health_days_period_figures(first_day, last_day, compare_first, compare_last, private.now())
         else private.health_period_figures(private.now(), days) end;
end
$$;


-- A product's field rules written once (30_inventory/10_products_and_lots.sql), asked by the CHECKs and by
-- private.check_product_fields.
create or replace function private.is_product_sku(sku text)
returns boolean
language sql immutable parallel safe as $$
  select sku operator(pg_catalog.~) '^[A-Za-z0-9][A-Za-z0-9._-]*$' and pg_catalog.char_length(sku) <= 64
$$;

create or replace function private.is_product_name(name text)
returns boolean
language sql immutable parallel safe as $$
  select pg_catalog.char_length(pg_catalog.btrim(name)) between 1 and 200
$$;

create or replace function private.is_reorder_level(level numeric)
returns boolean
language sql immutable parallel safe as $$
  select level between 0 and 1000000000 and level = pg_catalog.trunc(level)
$$;

revoke execute on function private.is_product_sku(text), private.is_product_name(text), private.is_reorder_level(numeric)
  from public, anon;

grant execute on function private.is_product_sku(text), private.is_product_name(text), private.is_reorder_level(numeric)
  to authenticated, service_role;

alter table public.products
  drop constraint products_sku_format,
  add constraint products_sku_format check (private.is_product_sku(sku)),
  drop constraint products_name_length,
  add constraint products_name_length check (private.is_product_name(name)),
  drop constraint products_reorder_level_range,
  add constraint products_reorder_level_range check (private.is_reorder_level(reorder_level));

-- The products function's field rules, for rpc callers: only known fields, each of the right type and
-- range; `required` names the fields that must be present.
create or replace function private.check_product_fields(fields jsonb, required text[])
returns void
language plpgsql set search_path = '' as $$
declare
  field text;
  value jsonb;
  problem text;
begin
  if jsonb_typeof(fields) is distinct from 'object' then
    perform private.raise_api_error(400, 'VALIDATION_ERROR', 'Invalid body: must be a JSON object',
      jsonb_build_object('field', null, 'value', fields, 'constraint', 'must be a JSON object'));
  end if;
  foreach field in array required loop
    if not fields ? field then
      perform private.raise_api_error(400, 'VALIDATION_ERROR', format('Invalid %s: required', field),
        jsonb_build_object('field', field, 'value', null, 'constraint', 'required'));
    end if;
  end loop;
  for field, value in select j.key, j.value from jsonb_each(fields) j loop
    problem := null;
    if field = 'sku' then
      if jsonb_typeof(value) <> 'string' or not private.is_product_sku(value #>> '{}') then
        problem := 'letters, digits, dot, underscore or hyphen, starting with a letter or digit, at most 64 characters';
      end if;
    elsif field = 'name' then
      if jsonb_typeof(value) <> 'string' or not private.is_product_name(value #>> '{}') then
        problem := 'a string of 1 to 200 characters';
      end if;
    elsif field = 'is_active' then
      if jsonb_typeof(value) <> 'boolean' then
        problem := 'must be true or false';
      end if;
    elsif field = 'allocation' then
      if jsonb_typeof(value) <> 'string' or not value #>> '{}' = any (enum_range(null::public.stock_allocation)::text[]) then
        problem := private.one_of(enum_range(null::public.stock_allocation));
      end if;
    elsif field = 'reorder_level' then
      -- Two statements, so the cast never meets a value that is not a number.
      if jsonb_typeof(value) <> 'number' then
        problem := 'a whole number from 0 to 1000000000';
      elsif not private.is_reorder_level((value #>> '{}')::numeric) then
        problem := 'a whole number from 0 to 1000000000';
      end if;
    else
      problem := 'unknown field';
    end if;
    if problem is not null then
      perform private.raise_api_error(400, 'VALIDATION_ERROR', format('Invalid %s: %s', field, problem),
        jsonb_build_object('field', field, 'value', value, 'constraint', problem));
    end if;
  end loop;
end
$$;


-- Functions past 80 lines split (test/platform/schema-shape.test.ts): stock_adjust's checks and its product
-- mode, the campaign rules' type and history checks, the health report's gathering and its scoring.
-- stock_adjust's checks of its input, each refusal as it names the field, in the order they are answered.
create or replace function private.check_stock_adjust(
  adjust_quantity bigint, reason text, product_id uuid, inventory_id uuid, source text, reason_note text
)
returns void
language plpgsql stable set search_path = '' as $$
declare
  rule public.stock_adjust_reasons;
  amount bigint := abs(adjust_quantity);
begin
  if (product_id is null) = (inventory_id is null) then
    perform private.invalid_stock_field(case when product_id is null then 'product_id' else 'inventory_id' end,
      null, 'exactly one of product_id and inventory_id is required', null, 'exactly_one',
      jsonb_build_object('fields', jsonb_build_array('product_id', 'inventory_id')));
  end if;
  if adjust_quantity is null then
    perform private.invalid_stock_field('adjust_quantity', null, 'required');
  elsif adjust_quantity = 0 then
    perform private.invalid_stock_field('adjust_quantity', to_jsonb(adjust_quantity), 'must not be 0');
  elsif amount > 1000000000 then
    perform private.invalid_stock_field('adjust_quantity', to_jsonb(adjust_quantity),
      'must be between -1000000000 and 1000000000');
  end if;
  select * into rule from public.stock_adjust_reasons r where r.reason::text = check_stock_adjust.reason;
  if reason is null then
    perform private.invalid_stock_field('reason', null, 'required');
  elsif rule.reason is null then
    perform private.invalid_stock_field('reason', to_jsonb(reason), private.one_of(enum_range(null::public.stock_adjust_reason)));
  elsif adjust_quantity > 0 and rule.direction = 'decrease' then
    perform private.invalid_stock_field('reason', to_jsonb(reason), 'is a decrease reason; adjust_quantity is positive',
      null, 'reason_direction', jsonb_build_object('direction', 'decrease'));
  elsif adjust_quantity < 0 and rule.direction = 'increase' then
    perform private.invalid_stock_field('reason', to_jsonb(reason), 'is an increase reason; adjust_quantity is negative',
      null, 'reason_direction', jsonb_build_object('direction', 'increase'));
  end if;
  if rule.needs_note and coalesce(btrim(reason_note), '') = '' then
    perform private.invalid_stock_field('reason_note', to_jsonb(reason_note), 'required when reason is ' || reason,
      null, 'required');
  elsif char_length(reason_note) > 500 then
    perform private.invalid_stock_field('reason_note', to_jsonb(reason_note), 'at most 500 characters');
  end if;
  if not coalesce(source, 'manual_adjustment') = any (enum_range(null::public.stock_adjust_source)::text[]) then
    perform private.invalid_stock_field('source', to_jsonb(source), private.one_of(enum_range(null::public.stock_adjust_source)));
  end if;

end
$$;

-- stock_adjust of a product as a whole, its row locked: an increase onto its newest lot (a first lot when it
-- has none), a decrease drawn from its lots first in first out. The lot it names, and the lots drawn.
create or replace function private.adjust_product_stock(
  product public.products, adjust_quantity bigint, source text, reason text, details jsonb, operator_id uuid,
  operator_role text, out lot_id uuid, out allocations jsonb
)
language plpgsql set search_path = '' as $$
declare
  lot public.inventory_records;
  amount bigint := abs(adjust_quantity);
begin
  if adjust_quantity > 0 then
    select * into lot
    from public.inventory_records r
    where r.product_id = product.id
    order by r.created_at desc, r.id desc
    limit 1
    for update;
    if found then
      update public.inventory_records r
      set quantity = r.quantity + adjust_quantity, available_quantity = r.available_quantity + adjust_quantity
      where r.id = lot.id
      returning r.* into lot;
    else
      insert into public.inventory_records (product_id, quantity, available_quantity, source, note, received_at,
                                            created_by, created_by_role)
      values (product.id, adjust_quantity, adjust_quantity, adjust_product_stock.source,
              format('Initial stock adjustment: %s', reason), private.now(), operator_id, operator_role)
      returning * into lot;
    end if;
    perform private.log_movement(gen_random_uuid(), 'stock_adjust', lot, adjust_quantity, details,
      operator_id, operator_role);
  else
    if not exists (select 1 from public.inventory_records r where r.product_id = product.id) then
      perform private.raise_api_error(422, 'NO_INVENTORY_RECORD',
        format('Product %s has no inventory record to decrease', product.sku),
        jsonb_build_object('product_id', product.id));
    end if;
    if product.available_stock < amount then
      perform private.insufficient_stock(product.id, null, amount, product.available_stock);
    end if;
    allocations := private.draw_lots(product.id, amount, gen_random_uuid(), 'stock_adjust', details,
      operator_id, operator_role);
    lot.id := (allocations -> 0 ->> 'inventory_id')::uuid;
  end if;
  lot_id := lot.id;
end
$$;

create or replace function public.stock_adjust(
  adjust_quantity bigint default null,
  reason text default null,
  product_id uuid default null,
  inventory_id uuid default null,
  source text default 'manual_adjustment',
  reason_note text default null,
  idempotency_key text default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator record;
  replay jsonb;
  product public.products;
  lot public.inventory_records;
  target_product uuid;
  amount bigint := abs(adjust_quantity);
  details jsonb;
  allocations jsonb;
  previous_stock bigint;
  new_stock bigint;
begin
  select * into operator from private.stock_operator();
  perform private.check_stock_adjust(adjust_quantity, reason, product_id, inventory_id, source, reason_note);
  source := coalesce(source, 'manual_adjustment');

  replay := private.claim_idempotency_key(operator.operator_key, idempotency_key, 'stock_adjust', jsonb_build_object(
    'product_id', product_id, 'inventory_id', inventory_id, 'adjust_quantity', adjust_quantity, 'reason', reason,
    'reason_note', reason_note, 'source', source));
  if replay is not null then
    return replay;
  end if;

  details := jsonb_build_object('source', source, 'reason', reason, 'reason_note', reason_note);

  if inventory_id is not null then
    select r.product_id into target_product from public.inventory_records r where r.id = stock_adjust.inventory_id;
    if not found then
      perform private.raise_api_error(404, 'INVENTORY_RECORD_NOT_FOUND',
        format('Inventory record %s does not exist', inventory_id), jsonb_build_object('inventory_id', inventory_id));
    end if;
    product := private.lock_product(target_product);
    select * into lot from public.inventory_records r where r.id = stock_adjust.inventory_id for update;
    -- Neither more than the lot holds nor units open orders hold (products.reserved_stock).
    if least(lot.available_quantity, product.available_stock) + adjust_quantity < 0 then
      perform private.insufficient_stock(product.id, lot.id, amount, least(lot.available_quantity, product.available_stock));
    end if;
    previous_stock := lot.available_quantity;
    update public.inventory_records r
    set quantity = r.quantity + greatest(adjust_quantity, 0), available_quantity = r.available_quantity + adjust_quantity
    where r.id = lot.id
    returning r.* into lot;
    perform private.log_movement(gen_random_uuid(), 'stock_adjust', lot, adjust_quantity, details,
      operator.operator_id, operator.operator_role);
    new_stock := lot.available_quantity;
  else
    product := private.lock_product(product_id);
    previous_stock := product.current_stock;
    new_stock := product.current_stock + adjust_quantity;
    select a.lot_id, a.allocations into lot.id, allocations
    from private.adjust_product_stock(product, adjust_quantity, source, reason, details, operator.operator_id,
                                      operator.operator_role) a;
  end if;

  return private.remember_response(operator.operator_key, idempotency_key, jsonb_strip_nulls(jsonb_build_object(
    'success', true,
    'inventory_id', lot.id,
    'product_id', product.id,
    'adjustment_quantity', adjust_quantity,
    'adjustment_type', case when adjust_quantity > 0 then 'increase' else 'decrease' end,
    'previous_available_stock', previous_stock,
    'new_available_stock', new_stock,
    'current_stock', product.current_stock + adjust_quantity,
    'reason', reason,
    'reason_note', reason_note,
    'source', source,
    'allocations', allocations,
    'message', format('Stock of %s %s by %s (%s)', product.sku,
      case when adjust_quantity > 0 then 'increased' else 'decreased' end, amount, reason)
  )));
end
$$;

-- The campaign type a new campaign names: an active one, of a layer campaigns take (not general, the
-- catalogue's catch-all).
create or replace function private.new_campaign_type(campaign_type text)
returns public.campaign_type_config
language plpgsql stable set search_path = '' as $$
declare
  type_config public.campaign_type_config;
begin
  select * into type_config from public.campaign_type_config t where t.type_code = new_campaign_type.campaign_type;
  if not found or not type_config.is_active then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR',
      format('Invalid campaign_type: %s is not an active campaign type', campaign_type),
      'campaign_type', to_jsonb(campaign_type),
      'an active campaign type of the site-wide, target-oriented or category-specific layer');
  end if;
  if type_config.attribution_layer = 'general' then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR',
      format('Invalid campaign_type: %s is a general-layer type; general-layer types are the catalogue''s '
             'catch-all, not campaign types', campaign_type),
      'campaign_type', to_jsonb(campaign_type),
      'not a general-layer type (the catalogue''s catch-all): a type of the site-wide, target-oriented or '
      'category-specific layer');
  end if;
  return type_config;
end
$$;

-- A completed or cancelled campaign is history: attribution has counted it with its weight, priority and
-- dates, so those stay as they were (its name, description, budget and audience may still change).
create or replace function private.check_final_campaign(new_row jsonb, old_row jsonb, status text)
returns void
language plpgsql immutable set search_path = '' as $$
declare
  final_field text;
begin
  select f into final_field
  from unnest(array['attribution_weight', 'priority_score', 'start_date', 'end_date']) f
  where new_row -> f is distinct from old_row -> f
  limit 1;
  if final_field is not null then
    perform private.campaign_field_error(422, 'CAMPAIGN_FINAL',
      format('A %s campaign keeps its %s: attribution has already counted it', status, final_field),
      final_field, new_row -> final_field, 'fixed once the campaign is completed or cancelled');
  end if;
end
$$;

-- Every rule a single row can break, raised with the area's codes whoever writes the row.
create or replace function private.campaigns_rules()
returns trigger
language plpgsql set search_path = '' as $$
declare
  type_config public.campaign_type_config;
begin
  if tg_op = 'INSERT' then
    if new.status <> 'draft' then
      perform private.campaign_field_error(422, 'INVALID_STATUS_TRANSITION', 'A campaign is created as draft',
        'status', to_jsonb(new.status), 'new campaigns start as draft');
    end if;
    type_config := private.new_campaign_type(new.campaign_type);
    new.attribution_layer := type_config.attribution_layer;
    new.attribution_weight := coalesce(new.attribution_weight, type_config.default_weight);
    new.priority_score := coalesce(new.priority_score, type_config.default_priority);
    new.created_by := auth.uid();
  else
    if new.campaign_type is distinct from old.campaign_type or new.attribution_layer is distinct from old.attribution_layer then
      perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'A campaign''s type and layer cannot change',
        'campaign_type', to_jsonb(new.campaign_type), 'fixed when the campaign is created');
    end if;
    if new.status <> old.status and not private.campaign_status_move_allowed(old.status, new.status) then
      perform private.campaign_field_error(422, 'INVALID_STATUS_TRANSITION',
        format('A campaign cannot move from %s to %s', old.status, new.status),
        'status', to_jsonb(new.status),
        coalesce(
          'allowed from ' || old.status || ': ' || nullif(array_to_string(public.allowed_transitions(old), ', '), ''),
          old.status || ' is final'));
    end if;
    if old.status in ('completed', 'cancelled') then
      perform private.check_final_campaign(to_jsonb(new), to_jsonb(old), old.status::text);
    end if;
  end if;

  if not isfinite(new.start_date) or not isfinite(new.end_date) then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'start_date and end_date are calendar days',
      case when isfinite(new.start_date) then 'end_date' else 'start_date' end,
      to_jsonb(case when isfinite(new.start_date) then new.end_date else new.start_date end), 'a calendar day, not infinity');
  end if;
  if new.start_date > new.end_date then
    perform private.campaign_field_error(422, 'INVALID_DATE_RANGE', 'start_date must not be later than end_date',
      'end_date', to_jsonb(new.end_date), format('on or after start_date (%s)', new.start_date));
  end if;
  if new.attribution_weight < 0 or new.attribution_weight > 9.99 then
    perform private.campaign_field_error(422, 'ATTRIBUTION_WEIGHT_EXCEEDED', 'attribution_weight must be between 0 and 9.99',
      'attribution_weight', to_jsonb(new.attribution_weight), '0.00-9.99');
  end if;
  if scale(new.attribution_weight) > 2 then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'attribution_weight has at most 2 decimal places',
      'attribution_weight', to_jsonb(new.attribution_weight), 'at most 2 decimal places');
  end if;

  -- Every write that leaves a site-wide campaign active (activating it, moving its dates, restoring it,
  -- any edit of it) takes one transaction-level lock first, so such writes run one at a time and the
  -- exclusion constraint never waits on another writer's uncommitted entry. Without it, two batches
  -- activating campaigns of two windows in opposite orders each waited on the other's entry: a deadlock
  -- (the row locks a batch takes in id order cannot cover those waits). Writes to other campaigns, and
  -- reads, are not affected.
  if tg_op = 'UPDATE' and new.status = 'active' and new.attribution_layer = 'site-wide' and new.deleted_at is null then
    perform pg_advisory_xact_lock(hashtext('public.campaigns: one site-wide campaign active per date'));
  end if;
  return new;
end
$$;

-- The instants a report reads: its window [window_from, window_before) and the one it is compared with, and
-- the store days marketing reads. A rolling period is the `days` of 24 hours ending `as_of` and the as many
-- before, marketing its whole store days ending today (45_marketing.sql); a custom period is its store days
-- and those it is compared with (55_custom_periods.sql), up to `as_of`.
create or replace function private.health_report_window(
  days integer, as_of timestamptz, first_day date, last_day date, compare_first date, compare_last date,
  out window_from timestamptz, out window_before timestamptz, out compare_from timestamptz,
  out compare_before timestamptz, out marketing_first date, out marketing_last date
)
language sql stable set search_path = '' as $$
  select ws.first_at, ws.before_at, cs.first_at, cs.before_at, w.first_day, w.last_day
  from (select health_report_window.first_day, health_report_window.last_day) w,
       private.health_days_span(w.first_day, w.last_day, as_of) ws,
       private.health_days_span(compare_first, compare_last, as_of) cs
  where w.first_day is not null
  union all
  select as_of - make_interval(hours => 24 * days), as_of, as_of - make_interval(hours => 48 * days),
         as_of - make_interval(hours => 24 * days), d.first_day, d.last_day
  from private.marketing_days(as_of, days) d
  where health_report_window.first_day is null
$$;

-- `language`: the words' language, the seeds' Traditional Chinese unless English (`en`) is asked for; the
-- numbers and codes are the same in both. `version` 2 scores marketing (45_marketing.sql), says how in
-- `marketingDetails` and adds the campaigns' insights, naming them `with_names`; version 1 is the seeds'
-- report, marketing 0. This gathers the figures of the window, and of the one it is compared with;
-- private.health_report_from scores and words them.
create or replace function private.health_report(
  period text,
  include_system boolean,
  include_trends boolean,
  include_insights boolean,
  as_of timestamptz,
  language text default 'zh-TW',
  version integer default 1,
  with_names boolean default false,
  first_day date default null,
  last_day date default null,
  compare_first date default null,
  compare_last date default null
)
returns jsonb
language plpgsql stable set search_path = '' as $$
declare
  days integer := case when period <> 'custom' then private.health_period_days(period)
                       when version >= 2 then last_day - first_day + 1 end;
  w record;
  win jsonb;
  stage text := 'parameters';
  o record; c record; t record; p record; sys record;
  marketing jsonb;
begin
  if days is null then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid period', jsonb_build_object(
      'parameter', 'period', 'provided', period,
      'expected', private.health_periods(version)));
  end if;
  if period = 'custom' then
    -- Store days (55_custom_periods.sql): orders as they are now, customers scored at each window's end.
    select * into w from private.health_report_window(days, as_of, first_day, last_day, compare_first, compare_last);
    win := to_jsonb(w);
    stage := 'orders'; select * into o from private.health_custom_order_figures(first_day, last_day, compare_first,
                                                                                   compare_last, as_of);
    stage := 'customers'; select * into c from private.health_custom_customer_figures(w.window_from, w.window_before,
                                                                                       w.compare_from, w.compare_before);
    stage := 'tickets'; select * into t from private.health_span_ticket_figures(w.window_from, w.window_before, as_of);
    stage := 'products'; select * into p from private.health_span_product_figures(w.window_from, w.window_before, as_of);
  else
    stage := 'orders'; select * into o from private.health_order_figures(as_of, days);
    stage := 'customers'; select * into c from private.health_customer_figures(as_of, days);
    stage := 'tickets'; select * into t from private.health_ticket_figures(as_of, days);
    stage := 'products'; select * into p from private.health_product_figures(as_of, days);
  end if;
  stage := 'system';
  select f.requests as system_requests, f.failures as system_failures, f.success_rate as system_success,
         f.p95_ms as system_p95_ms, f.connection_usage as system_connections
  into sys from private.health_system_figures(as_of) f where include_system;
  if version >= 2 then
    stage := 'marketing';
    if period <> 'custom' then
      win := to_jsonb(private.health_report_window(days, as_of, null, null, null, null));
    end if;
    marketing := private.health_marketing_figures((win ->> 'marketing_first')::date, (win ->> 'marketing_last')::date,
                                                  with_names);
  end if;
  -- Every figure, by the names of the figure functions' columns.
  return private.health_report_from(
    to_jsonb(o) || to_jsonb(c) || to_jsonb(t) || to_jsonb(p) || coalesce(to_jsonb(sys), '{}') || jsonb_build_object(
      'period', period, 'days', days, 'as_of', as_of, 'language', language, 'version', version,
      'custom', period = 'custom', 'include_system', include_system, 'include_trends', include_trends,
      'include_insights', include_insights, 'marketing', marketing, 'window', win));
exception
  when data_exception then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', stage, 'reason', sqlerrm));
end
$$;

-- The report from its figures (private.health_report gathers them, named as their functions' columns): the
-- scores, their details, 2.0's marketing and window, the trend and the insights, in the asked language.
create or replace function private.health_report_from(f jsonb)
returns jsonb
language plpgsql stable set search_path = '' as $$
declare
  stage text := 'scores';
  language text := f ->> 'language';
  customer_quality numeric;
  operational_efficiency numeric;
  support_effectiveness numeric;
  overall numeric;
  metrics jsonb;
  result jsonb;
  trend jsonb;
begin
  customer_quality := coalesce((f ->> 'average_rfm')::numeric / 5 * 100, 0);
  operational_efficiency := coalesce((f ->> 'completed')::numeric / nullif((f ->> 'orders')::numeric, 0) * 100, 0);
  support_effectiveness := case when (f ->> 'tickets')::numeric = 0 then 0
    else ((f ->> 'resolved')::numeric / (f ->> 'tickets')::numeric * 0.7 + (f ->> 'response_score')::numeric * 0.3) * 100 end;
  overall := (customer_quality + operational_efficiency + support_effectiveness) / 3;
  metrics := jsonb_build_object(
    'revenue', private.health_revenue_score((f ->> 'revenue')::numeric, (f ->> 'previous_revenue')::numeric),
    'satisfaction', private.health_satisfaction_score((f ->> 'average_rating')::numeric,
      (f ->> 'resolved')::numeric / nullif((f ->> 'tickets')::numeric, 0)),
    'fulfillment', private.health_fulfillment_score((f ->> 'completed')::numeric / nullif((f ->> 'orders')::numeric, 0),
      (f ->> 'on_time')::numeric / nullif((f ->> 'due')::numeric, 0)),
    'support', support_effectiveness / 10,
    'products', private.health_products_score((f ->> 'in_stock_share')::numeric, (f ->> 'sold_share')::numeric),
    'marketing', case when (f ->> 'version')::integer >= 2 then private.health_marketing_metric(f -> 'marketing') else 0 end,
    'system', case when (f ->> 'include_system')::boolean then private.health_system_score(
      (f ->> 'system_success')::numeric, (f ->> 'system_p95_ms')::numeric, (f ->> 'system_connections')::numeric) end
  );
  stage := 'validation';
  result := jsonb_build_object(
    'metrics', private.health_checked_metrics(metrics, overall),
    'scoreDetails', jsonb_build_object(
      'customerQuality', round(customer_quality, 2),
      'operationalEfficiency', round(operational_efficiency, 2),
      'supportEffectiveness', round(support_effectiveness, 2),
      'overallScore', round(overall, 2),
      'rating', private.health_word(private.health_rating(overall), language)
    )
  );
  if (f ->> 'version')::integer >= 2 then
    result := result || jsonb_build_object(
      'marketingDetails', private.health_marketing_details(f -> 'marketing', (f #>> '{window,marketing_first}')::date,
                                                           (f #>> '{window,marketing_last}')::date, language),
      'window', private.health_window(f ->> 'period', (f #>> '{window,window_from}')::timestamptz,
                                      (f #>> '{window,window_before}')::timestamptz,
                                      (f #>> '{window,compare_from}')::timestamptz,
                                      (f #>> '{window,compare_before}')::timestamptz));
  end if;
  if (f ->> 'include_trends')::boolean then
    stage := 'trends';
    -- A custom period's trend is the period against the one it is compared with (the records differ by period).
    if (f ->> 'custom')::boolean then
      trend := private.health_trend(
        private.health_percent_change(customer_quality, coalesce((f ->> 'previous_average_rfm')::numeric / 5 * 100, 0)),
        private.health_percent_change(operational_efficiency, coalesce((f ->> 'previous_completed')::numeric
                                      / nullif((f ->> 'previous_orders')::numeric, 0) * 100, 0)));
    else
      trend := private.health_week_trend((f ->> 'as_of')::timestamptz, (f ->> 'week_average_rfm')::numeric,
                                         (f ->> 'week_completed')::bigint, (f ->> 'week_orders')::bigint);
    end if;
    result := result || jsonb_build_object('trends', trend || jsonb_build_object(
      'description', private.health_word(trend ->> 'description', language)));
  end if;
  if (f ->> 'include_insights')::boolean then
    stage := 'insights';
    result := result || jsonb_build_object('insights', private.health_insights(f || jsonb_build_object(
      'revenue_score', (metrics ->> 'revenue')::numeric, 'customer_quality', customer_quality, 'overall', overall)));
  end if;
  return result;
exception
  when data_exception then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', stage, 'reason', sqlerrm));
end
$$;

revoke execute on function
  private.check_stock_adjust(bigint, text, uuid, uuid, text, text),
  private.adjust_product_stock(public.products, bigint, text, text, jsonb, uuid, text)
from public, anon, authenticated, service_role;

revoke execute on function private.new_campaign_type(text), private.check_final_campaign(jsonb, jsonb, text)
  from public, anon;

grant execute on function private.new_campaign_type(text), private.check_final_campaign(jsonb, jsonb, text)
  to authenticated, service_role;

revoke execute on function private.health_report_window(integer, timestamptz, date, date, date, date)
  from public, anon, authenticated;

revoke execute on function private.health_report_from(jsonb) from public, anon, authenticated;
