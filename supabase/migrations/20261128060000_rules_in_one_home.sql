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
  -- as many days before as a window of private.rfm_bands (a recency band, the scored days, the year) spans, or
  -- cancelled then.
  stepping as (
      select o.customer_id
      from (select 0 union all
            select unnest(b.recency_band_days || b.scored_days || b.year_days) from private.rfm_bands() b) w(days)
      cross join lateral (
        select o.customer_id from public.orders o
        where o.ordered_at >= lo - make_interval(hours => 24 * w.days)
          and o.ordered_at < hi - make_interval(hours => 24 * w.days)) o
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

