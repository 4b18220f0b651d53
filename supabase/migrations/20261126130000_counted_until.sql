-- The counted-order rule written once (issue 34): orders.counted_until, until when an order counts in the
-- figures (its cancellation; always when never cancelled; never when refunded). The change log carries it,
-- and the fold, the health figures, the store's days and the orders list read it instead of restating the
-- rule.

alter table public.orders add column counted_until timestamptz generated always as (
  case when status = 'refunded' then '-infinity'::timestamptz else coalesce(cancelled_at, 'infinity'::timestamptz) end
) stored;

alter table private.order_changes add column counted_until timestamptz;

update private.order_changes
set counted_until = case when status = 'refunded' then '-infinity'::timestamptz
                         else coalesce(cancelled_at, 'infinity'::timestamptz) end;

alter table private.order_changes alter column counted_until set not null;

drop function private.order_figure_inputs(private.order_changes[]);

drop function private.customer_counted_orders(uuid[], timestamptz[]);

-- Statement-level, over the transition tables, so a bulk write appends in one statement. Security definer
-- because order writers (administrators, the store's jobs) have no rights on `private`.
create or replace function private.log_order_changes()
returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select 1, n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
           n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
    from new_rows n;
  elsif tg_op = 'UPDATE' then
    -- An update of columns the analytics do not read (a payment time, updated_at) appends nothing: the
    -- versions that did not change cancel out.
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select -1, c.*
    from (select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
                 o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
          from old_rows o
          except all
          select n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
                 n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
          from new_rows n) c
    union all
    select 1, c.*
    from (select n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
                 n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
          from new_rows n
          except all
          select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
                 o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
          from old_rows o) c;
  elsif tg_op = 'DELETE' then
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select -1, o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
           o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
    from old_rows o;
  else
    truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
      private.customer_scores;
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
    private.customer_scores;
  insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                     promised_at, delivered_at, completed_at, cancelled_at, counted_until)
  select 1, o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
         o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
  from public.orders o;
  return private.fold_order_changes(true);
end
$$;

-- The order versions of a batch of the orders' change log (25_order_changes.sql) whose figure inputs
-- changed, +1 as they are, −1 as they were: an order's version out and in with the same inputs (a move from
-- paid to shipped) cancel out.
create or replace function private.order_figure_inputs(changes private.order_changes[])
returns table (
  sign integer, order_id uuid, ordered_at timestamptz, completed_at timestamptz, cancelled_at timestamptz,
  promised_at timestamptz, delivered_on_time boolean, counted_until timestamptz, total_amount numeric
)
language plpgsql stable set search_path = '' as $$
begin
  return query
  with versions as (
    select c.sign, c.order_id, c.ordered_at, c.completed_at, c.cancelled_at, c.promised_at,
           coalesce(c.delivered_at <= c.promised_at, false) as delivered_on_time,
           c.counted_until, c.total_amount
    from unnest(changes) c
  )
  select 1, c.*
  from (select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
               v.counted_until, v.total_amount
        from versions v where v.sign = 1
        except all
        select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
               v.counted_until, v.total_amount
        from versions v where v.sign = -1) c
  union all
  select -1, c.*
  from (select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
               v.counted_until, v.total_amount
        from versions v where v.sign = -1
        except all
        select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
               v.counted_until, v.total_amount
        from versions v where v.sign = 1) c;
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
    cross join (values (7::smallint, interval '168 hours'), (30::smallint, interval '720 hours'),
                       (90::smallint, interval '2160 hours')) w(days, span)
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

-- The customers whose counted orders (orders.counted_until after ordered_at) changed in what
-- RFM reads of them (time, amount, cancellation), each with the earliest moment that changed: before it,
-- their scores stay as they were. An order's version out and in with the same inputs cancel out.
create or replace function private.changed_customer_scores(changes private.order_changes[])
returns table (customer_id uuid, first_change timestamptz)
language plpgsql stable set search_path = '' as $$
begin
  return query
    select c.customer_id, min(c.ordered_at)
    from (
      select v.order_id, v.customer_id, v.ordered_at, v.counted_until, v.total_amount
      from unnest(changes) v
      where v.counted_until > v.ordered_at
      group by v.order_id, v.customer_id, v.ordered_at, v.counted_until, v.total_amount
      having sum(v.sign) <> 0
    ) c
    group by c.customer_id;
end
$$;

-- The counted orders (orders.counted_until after ordered_at) of `customers` as they are now that
-- a walk from `first_changes` on (paired by position) needs: those still counted in the year at the first
-- change, amounts in cents, exact in float8. First each customer's newest 256 (through
-- orders_customer_idx): they are all the walk needs when they are all there is, or when those placed before
-- the first change include as many counted for their whole year as the top frequency band, with the top
-- spend band between them. While any older order is in a window, so are those, newer, so frequency and
-- spend are in their top bands and recency is theirs: every state is the one the older orders would give.
-- So a change at a customer's newest orders (a checkout) reads a bounded number of them, however long
-- their history; anyone else's are all read.
create or replace function private.customer_counted_orders(customers uuid[], first_changes timestamptz[])
returns table (customer_id uuid, first_change timestamptz, ordered_at timestamptz, counted_until timestamptz, cents float8)
language plpgsql stable set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
#variable_conflict use_column
declare
  bands record := private.rfm_bands();
  year interval := make_interval(hours => 24 * bands.year_days);
begin
  if cardinality(customers) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;
  return query
  with recent as materialized (
    select f.customer_id, f.first_change, r.ordered_at, r.counted_until, r.cents,
           r.ordered_at < f.first_change and r.counted_until >= r.ordered_at + year
             as settled_before
    from unnest(customers, first_changes) f(customer_id, first_change)
    cross join lateral (
      select o.ordered_at, o.counted_until, (o.total_amount * 100)::float8 as cents
      from public.orders o
      where o.customer_id = f.customer_id
        and o.counted_until > o.ordered_at
        and least(o.counted_until, o.ordered_at + year) >= f.first_change
      order by o.ordered_at desc
      limit 256
    ) r
  ),
  bounded as (
    select r.customer_id
    from recent r
    group by r.customer_id
    having count(*) < 256
        or (count(*) filter (where r.settled_before) >= bands.frequency_band_orders[cardinality(bands.frequency_band_orders)]
            and sum(r.cents) filter (where r.settled_before) >= bands.spend_bands[cardinality(bands.spend_bands)] * 100)
  )
  select r.customer_id, r.first_change, r.ordered_at, r.counted_until, r.cents
  from recent r
  where r.customer_id in (select b.customer_id from bounded b)
  union all
  select o.customer_id, f.first_change, o.ordered_at, o.counted_until, (o.total_amount * 100)::float8
  from unnest(customers, first_changes) f(customer_id, first_change)
  join public.orders o on o.customer_id = f.customer_id
  where f.customer_id not in (select b.customer_id from bounded b)
    and o.counted_until > o.ordered_at
    and least(o.counted_until, o.ordered_at + year) >= f.first_change;
end
$$;

-- Each of `customers`' RFM states from `first_changes` on (paired by position), walked from their counted
-- orders as they are now: one row per moment their counts change, with the state those counts give (the
-- bands of private.rfm_bands).
create or replace function private.customer_state_walk(customers uuid[], first_changes timestamptz[])
returns table (customer_id uuid, at timestamptz, state integer)
language plpgsql stable set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
#variable_conflict use_column
declare
  bands record := private.rfm_bands();
  -- The counts' windows: the recency bands', then the scored window and the year (F and M).
  spans interval[] := array(select make_interval(hours => 24 * d)
                            from unnest(bands.recency_band_days || bands.scored_days || bands.year_days)
                                 with ordinality u(d, i)
                            order by i);
  spend_cents float8[] := array(select (s * 100)::float8 from unnest(bands.spend_bands) s order by 1);
begin
  if cardinality(customers) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;
  return query
  with counted as materialized (
    select * from private.customer_counted_orders(customers, first_changes)
  ),
  -- Each customer's counts just before their first changed order, where now and then still agree: their
  -- orders placed before it and not yet out of each span. The walk below starts from them.
  base as (
    select c.customer_id,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.counted_until, c.ordered_at + spans[1]) >= c.first_change) as n1,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.counted_until, c.ordered_at + spans[2]) >= c.first_change) as n2,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.counted_until, c.ordered_at + spans[3]) >= c.first_change) as n3,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.counted_until, c.ordered_at + spans[4]) >= c.first_change) as n4,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.counted_until, c.ordered_at + spans[5]) >= c.first_change) as scored,
           count(*) filter (where c.ordered_at < c.first_change) as year_orders,
           coalesce(sum(c.cents) filter (where c.ordered_at < c.first_change), 0) as year_cents
    from counted c
    group by c.customer_id
  ),
  -- An order counts for T in (ordered_at, counted_until], so among the last x days' orders for T in
  -- (ordered_at, least(counted_until, ordered_at + x)]: at ordered_at (kind 0) it enters
  -- every count (spans 1 to 6, and the year's spend), then leaves span k at its end (kind k). The steps from
  -- the customer's first changed order on, generated customer by customer, so the walk below sorts each
  -- customer's steps on their own.
  counted_steps (customer_id, at, kind, cents) as (
    select c.customer_id, x.at, x.kind, c.cents
    from (select * from counted order by customer_id) c
    cross join generate_series(0, 6) k(kind)
    cross join lateral (select k.kind, case k.kind when 0 then c.ordered_at
                                      else least(c.counted_until, c.ordered_at + spans[k.kind]) end as at) x
    where x.at >= c.first_change
  ),
  -- The counts after each moment (all its steps), on top of the customer's base.
  counts as (
    select s.customer_id, s.at,
           b.n1 + sum(case s.kind when 0 then 1 when 1 then -1 else 0 end) over w as n1,
           b.n2 + sum(case s.kind when 0 then 1 when 2 then -1 else 0 end) over w as n2,
           b.n3 + sum(case s.kind when 0 then 1 when 3 then -1 else 0 end) over w as n3,
           b.n4 + sum(case s.kind when 0 then 1 when 4 then -1 else 0 end) over w as n4,
           b.scored + sum(case s.kind when 0 then 1 when 5 then -1 else 0 end) over w as scored,
           b.year_orders + sum(case s.kind when 0 then 1 when 6 then -1 else 0 end) over w as year_orders,
           b.year_cents + sum(case s.kind when 0 then s.cents when 6 then -s.cents else 0 end) over w as year_cents
    from counted_steps s
    join base b on b.customer_id = s.customer_id
    window w as (partition by s.customer_id order by s.at)
  )
  select c.customer_id, c.at,
         case when c.scored <= 0 then 0
              else 25 * (1 + (c.n1 > 0)::integer + (c.n2 > 0)::integer + (c.n3 > 0)::integer + (c.n4 > 0)::integer)
                   + 5 * width_bucket(c.year_orders, bands.frequency_band_orders)
                   + width_bucket(c.year_cents, spend_cents) end
  from counts c;
end
$$;

revoke execute on function private.order_figure_inputs(private.order_changes[]),
  private.customer_counted_orders(uuid[], timestamptz[])
from public, anon, authenticated;

-- Orders in the window [as_of − days, as_of) and in the equal window before it, as of `as_of`: orders,
-- completed before `as_of`, cancelled before it, due (promised before it, not cancelled) and on time
-- among those, the counted revenue (not refunded, not cancelled before `as_of`) of both windows, and the
-- counted orders behind the window's.
create or replace function private.health_window_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric, previous_revenue numeric,
  revenue_orders bigint
)
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
declare
  span interval := make_interval(hours => 24 * days);
  boundary timestamptz := private.health_boundary(as_of);
  lo timestamptz := least(boundary, as_of);
  hi timestamptz := greatest(boundary, as_of);
begin
  return query
  with
  -- Every order with a step between the boundary and `as_of`, [lo, hi): ordered then, or one or two windows before, or
  -- completed, promised or cancelled then.
  stepping as (
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.ordered_at >= lo and o.ordered_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.ordered_at >= lo - span and o.ordered_at < hi - span
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.ordered_at >= lo - 2 * span and o.ordered_at < hi - 2 * span
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.completed_at >= lo and o.completed_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.promised_at >= lo and o.promised_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.cancelled_at >= lo and o.cancelled_at < hi
  ),
  -- Their figures as of `as_of` (+1) and as of the boundary (−1).
  stepped as (
    select x.sign, o.ordered_at >= x.t - span and o.ordered_at < x.t as in_window,
           o.ordered_at >= x.t - 2 * span and o.ordered_at < x.t - span as in_previous,
           coalesce(o.cancelled_at < x.t, false) as is_cancelled, o.completed_at < x.t as is_completed,
           o.promised_at < x.t as is_promised, o.delivered_at <= o.promised_at as delivered_on_time,
           o.counted_until >= x.t as is_counted, o.total_amount
    from stepping o
    cross join (values (as_of, 1), (boundary, -1)) x(t, sign)
  ),
  change as (
    select coalesce(sum(s.sign) filter (where s.in_window), 0) as orders,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_completed), 0) as completed,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_cancelled), 0) as cancelled,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_promised and not s.is_cancelled), 0) as due,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_promised and not s.is_cancelled and s.delivered_on_time), 0)
             as on_time,
           coalesce(sum(s.sign * s.total_amount)
                      filter (where s.in_window and s.is_counted), 0) as revenue,
           coalesce(sum(s.sign * s.total_amount)
                      filter (where s.in_previous and s.is_counted), 0) as previous_revenue,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_counted), 0)
             as revenue_orders,
           coalesce(sum(s.sign) filter (where s.in_previous and s.is_counted), 0)
             as previous_revenue_orders
    from stepped s
  )
  -- Revenue is the sum of the counted orders' amounts, and 0 when there is none (as sum's coalesce gives).
  select f.orders + c.orders, f.completed + c.completed, f.cancelled + c.cancelled, f.due + c.due,
         f.on_time + c.on_time,
         case when f.revenue_orders + c.revenue_orders = 0 then 0 else f.revenue + c.revenue end,
         case when f.previous_revenue_orders + c.previous_revenue_orders = 0 then 0
              else f.previous_revenue + c.previous_revenue end,
         f.revenue_orders + c.revenue_orders
  from private.health_figures_before(days, boundary) f, change c;
end
$$;

-- The store's today so far and yesterday (store days, private.store_day), for administrators and the
-- service key: each day's orders as the figures route and the orders list count a window, as it stood at
-- the day's end (today: now). Read from the orders themselves over the ordered_at index: a day is a few
-- thousand orders at most, where the kept figures are binned for 7-, 30- and 90-day windows.
create or replace function health.business_days()
returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  as_of timestamptz := private.now();
  today date := private.store_day(as_of);
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to see the figures');
  end if;
  return jsonb_build_object('time_zone', private.store_time_zone(), 'as_of', private.api_timestamp(as_of))
    || (select jsonb_object_agg(d.name, jsonb_build_object(
                 'date', d.day, 'from', private.api_timestamp(d.first), 'before', private.api_timestamp(d.until),
                 'revenue', f.revenue, 'counted_orders', f.counted_orders, 'orders', f.orders,
                 'completed', f.completed, 'cancelled', f.cancelled))
        from (values ('today', today, private.store_day_start(today), as_of),
                     ('yesterday', today - 1, private.store_day_start(today - 1), private.store_day_start(today)))
             d(name, day, first, until)
        cross join lateral (
          select coalesce(sum(o.total_amount) filter (where k.counted), 0) as revenue,
                 count(*) filter (where k.counted) as counted_orders,
                 count(*) as orders,
                 count(*) filter (where o.completed_at < d.until) as completed,
                 count(*) filter (where o.cancelled_at < d.until) as cancelled
          from public.orders o
          cross join lateral (select o.counted_until >= d.until as counted) k
          where o.ordered_at >= d.first and o.ordered_at < d.until) f);
end
$$;
