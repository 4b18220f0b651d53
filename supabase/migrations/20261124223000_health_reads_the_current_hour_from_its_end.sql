-- Issue 19: a health report as of a moment in a busy current hour counts back from the hour's end instead
-- of reading every order the hour has had so far (private.health_boundary).

-- The hour boundary a report as of `as_of` counts from: the start or the end of `as_of`'s hour, whichever
-- has fewer orders to read between it and `as_of`. Either gives the same figures. From the start, the
-- orders placed in [start, as_of) and those leaving a window then (placed 3 to 365 days before); from the
-- end, the same of [as_of, end), where nothing is placed yet when that is the rest of the current hour.
-- The orders placed a week before each part stand for the ones leaving a window, six ranges in all; the
-- orders placed before `as_of` are counted only as far as the choice needs, so a busy hour costs a
-- bounded count, not a read of all its orders. Generic plans: each count is a range of one index whatever
-- the moment, and planning them anew would cost more than they do.
create or replace function private.health_boundary(as_of timestamptz)
returns timestamptz
language plpgsql
stable
set search_path = ''
set plan_cache_mode = 'force_generic_plan'
as $$
declare
  hour_start timestamptz := date_bin('1 hour', as_of, timestamptz '2000-01-01 00:00+00');
  hour_end timestamptz := hour_start + interval '1 hour';
  placed_later bigint;
  week_earlier bigint;
  week_later bigint;
  threshold bigint;
  placed_earlier bigint;
begin
  if as_of = hour_start then
    return hour_start;
  end if;
  select count(*) filter (where o.ordered_at < as_of - interval '168 hours'),
         count(*) filter (where o.ordered_at >= as_of - interval '168 hours'),
         (select count(*) from public.orders l where l.ordered_at >= as_of and l.ordered_at < hour_end)
    into week_earlier, week_later, placed_later
  from public.orders o
  where o.ordered_at >= hour_start - interval '168 hours' and o.ordered_at < hour_end - interval '168 hours';
  threshold := placed_later + 6 * (week_later - week_earlier);
  select count(*) into placed_earlier
  from (select from public.orders o where o.ordered_at >= hour_start and o.ordered_at < as_of
        limit greatest(threshold, 0) + 1) x;
  return case when placed_earlier > threshold then hour_end else hour_start end;
end
$$;

create or replace function private.health_window_customer_figures(as_of timestamptz, days integer)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint)
language plpgsql
stable
set search_path = ''
set plan_cache_mode = 'force_custom_plan'
as $$
declare
  boundary timestamptz := private.health_boundary(as_of);
  lo timestamptz := least(boundary, as_of);
  hi timestamptz := greatest(boundary, as_of);
begin
  return query
  with
  -- Every customer whose state may change between the boundary and `as_of`, [lo, hi): an order placed then, or 3, 7, 14, 30, 90
  -- or 365 days before, or cancelled then.
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

revoke execute on function private.health_boundary(timestamptz) from public, anon, authenticated;

grant execute on function private.health_boundary(timestamptz) to service_role;
