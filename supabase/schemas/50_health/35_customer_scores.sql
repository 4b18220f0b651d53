-- Each customer's RFM score as their orders change (the customer half of 30_figure_changes.sql): which
-- customers a batch of the orders' change log concerns, and their rescoring, both run by the fold
-- (60_order_changes_fold.sql).

-- The customers whose counted orders changed in what RFM reads (time, amount, cancellation), each with the
-- earliest moment that changed. A version out and in with the same inputs cancel out only within the
-- transaction that wrote both: a rescoring walks the orders as they are, so an earlier fold may have seen a
-- version whose undoing comes from a later transaction, and the customer must be walked again.
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
      group by v.transaction_id, v.order_id, v.customer_id, v.ordered_at, v.counted_until, v.total_amount
      having sum(v.sign) <> 0
    ) c
    group by c.customer_id;
end
$$;

-- The counted orders of `customers` a walk from `first_changes` on needs (paired by position): those still
-- counted in the year at the first change, amounts in cents (exact in float8). Only each customer's newest 256
-- when they are all there is, or when enough of them fill the top frequency and spend bands that no older order
-- changes a state: so a checkout reads a bounded number of orders, however long the customer's history.
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

-- What rescoring `customers` from `first_changes` on (paired by position) changes: for each customer one
-- `kept` row, with how many of their kept moments come before the first change (those stay), and their
-- moments from the first change on as walked from their orders now (`now`) and as kept until now (`then`),
-- each with the state it leaves (`previous`). Only moments where the state changes.
create or replace function private.customer_score_moments(customers uuid[], first_changes timestamptz[])
returns table (customer_id uuid, moment text, kept integer, at timestamptz, state integer, previous integer)
language plpgsql stable set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
#variable_conflict use_column
begin
  if cardinality(customers) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;
  return query
  with walked as materialized (
    select w.customer_id, w.at, w.state from private.customer_state_walk(customers, first_changes) w
  ),
  -- How many of the kept moments come before the first change, and the state then.
  kept as materialized (
    select f.customer_id, s.changed_at, s.states, p.kept, coalesce(s.states[p.kept], 0)::integer as state_before
    from unnest(customers, first_changes) f(customer_id, first_change)
    join private.customer_scores s on s.customer_id = f.customer_id
    cross join lateral (select case when cardinality(s.changed_at) = 0 then 0
                                    else width_bucket(f.first_change - interval '1 microsecond', s.changed_at) end as kept) p
  )
  select k.customer_id, 'kept', k.kept, null::timestamptz, null::integer, null::integer from kept k
  union all
  select m.customer_id, 'now', null, m.at, m.state, m.previous
  from (
    select w.customer_id, w.at, w.state,
           coalesce(lag(w.state) over (partition by w.customer_id order by w.at), k.state_before) as previous
    from walked w
    join kept k on k.customer_id = w.customer_id
  ) m
  where m.state <> m.previous
  union all
  select k.customer_id, 'then', null, e.at, e.state::integer,
         coalesce(lag(e.state::integer) over (partition by k.customer_id order by e.i), k.state_before)
  from kept k
  cross join lateral unnest(k.changed_at[k.kept + 1:], k.states[k.kept + 1:]) with ordinality e(at, state, i);
end
$$;

-- Rescores `customers` from `first_changes` on (paired by position): keeps their new moments in
-- `private.customer_scores` and adds the difference between the moments now and then to the figure
-- changes (private.add_customer_state_changes). Their rows are taken in customer order first, so two
-- rescorings of the same customers follow each other and the second walks what the first committed.
create or replace function private.apply_customer_score_changes(customers uuid[], first_changes timestamptz[])
returns void
language plpgsql set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
declare
  moments_at timestamptz[];
  states integer[];
  counts bigint[];
begin
  if coalesce(cardinality(customers), 0) = 0 then
    return;
  end if;
  insert into private.customer_scores (customer_id)
  select c.customer_id from unnest(customers) c(customer_id) order by c.customer_id
  on conflict (customer_id) do nothing;
  perform 1 from private.customer_scores s where s.customer_id = any(customers) order by s.customer_id for update;
  if cardinality(customers) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;

  with moments as materialized (
    select * from private.customer_score_moments(customers, first_changes)
  ),
  -- What stays before the first change, then the walk's moments (a customer left with none has none).
  rescored as (
    update private.customer_scores s
    set changed_at = s.changed_at[1:n.kept] || n.changed_at, states = s.states[1:n.kept] || n.states
    from (select m.customer_id, max(m.kept) as kept,
                 coalesce(array_agg(m.at order by m.at) filter (where m.moment = 'now'), '{}') as changed_at,
                 coalesce(array_agg(m.state::smallint order by m.at) filter (where m.moment = 'now'), '{}') as states
          from moments m
          where m.moment in ('kept', 'now')
          group by m.customer_id) n
    where s.customer_id = n.customer_id
    returning 1
  ),
  -- Customers entering (+1) and leaving (−1) each state, by 10 minutes: now's moments minus then's.
  state_changes as (
    select date_bin('10 minutes', c.at, timestamptz '2000-01-01 00:00+00') as ten_minutes, c.state, sum(c.n) as n
    from moments m
    cross join lateral (values (m.at, m.state, case m.moment when 'now' then 1 else -1 end),
                               (m.at, m.previous, case m.moment when 'now' then -1 else 1 end)) c(at, state, n)
    where m.moment in ('now', 'then') and c.state <> 0
    group by 1, 2
    having sum(c.n) <> 0
  )
  select array_agg(c.ten_minutes), array_agg(c.state), array_agg(c.n) into moments_at, states, counts
  from state_changes c;
  perform private.add_customer_state_changes(moments_at, states, counts);
end
$$;

-- Adds customers entering (a positive count) and leaving (a negative one) RFM states at the 10 minutes
-- `moments_at` (paired by position with `states` and `counts`) to the figure changes, by 10 minutes and by
-- hour.
create or replace function private.add_customer_state_changes(moments_at timestamptz[], states integer[], counts bigint[])
returns void
language plpgsql set search_path = '' as $$
begin
  with added as materialized (
    select x.days, c.ten_minutes, sum(c.n * x.customers) as customers, sum(c.n * x.score_sum) as score_sum,
           sum(c.n * x.scores_1_mod_3) as scores_1_mod_3, sum(c.n * x.scores_2_mod_3) as scores_2_mod_3,
           sum(c.n * x.scores_of_3) as scores_of_3, sum(c.n * x.repeat_customers) as repeat_customers
    from unnest(moments_at, states, counts) c(ten_minutes, state, n)
    join (select * from private.health_rfm_state_figures()) x on x.state = c.state
    group by 1, 2
    having sum(c.n * x.customers) <> 0 or sum(c.n * x.score_sum) <> 0 or sum(c.n * x.scores_1_mod_3) <> 0
        or sum(c.n * x.scores_2_mod_3) <> 0 or sum(c.n * x.scores_of_3) <> 0 or sum(c.n * x.repeat_customers) <> 0
  ),
  by_10_minutes as (
    insert into private.health_figure_changes_by_10_minutes as f (
      days, ten_minutes, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3, repeat_customers)
    select a.days, a.ten_minutes, a.customers, a.score_sum, a.scores_1_mod_3, a.scores_2_mod_3, a.scores_of_3,
           a.repeat_customers
    from added a
    order by 1, 2
    on conflict (days, ten_minutes) do update set
      customers = f.customers + excluded.customers,
      score_sum = f.score_sum + excluded.score_sum,
      scores_1_mod_3 = f.scores_1_mod_3 + excluded.scores_1_mod_3,
      scores_2_mod_3 = f.scores_2_mod_3 + excluded.scores_2_mod_3,
      scores_of_3 = f.scores_of_3 + excluded.scores_of_3,
      repeat_customers = f.repeat_customers + excluded.repeat_customers
  )
  insert into private.health_figure_changes as f (
    days, hour, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3, repeat_customers)
  select a.days, date_bin('1 hour', a.ten_minutes, timestamptz '2000-01-01 00:00+00'), sum(a.customers),
         sum(a.score_sum), sum(a.scores_1_mod_3), sum(a.scores_2_mod_3), sum(a.scores_of_3), sum(a.repeat_customers)
  from added a
  group by 1, 2
  order by 1, 2
  on conflict (days, hour) do update set
    customers = f.customers + excluded.customers,
    score_sum = f.score_sum + excluded.score_sum,
    scores_1_mod_3 = f.scores_1_mod_3 + excluded.scores_1_mod_3,
    scores_2_mod_3 = f.scores_2_mod_3 + excluded.scores_2_mod_3,
    scores_of_3 = f.scores_of_3 + excluded.scores_of_3,
    repeat_customers = f.repeat_customers + excluded.repeat_customers;
end
$$;

revoke execute on function private.health_rfm_state_figures(),
  private.order_figure_inputs(private.order_changes[]),
  private.order_figure_steps(private.order_changes[]),
  private.apply_order_figure_changes(private.order_changes[]),
  private.changed_customer_scores(private.order_changes[]),
  private.customer_counted_orders(uuid[], timestamptz[]),
  private.customer_state_walk(uuid[], timestamptz[]),
  private.customer_score_moments(uuid[], timestamptz[]),
  private.apply_customer_score_changes(uuid[], timestamptz[]),
  private.add_customer_state_changes(timestamptz[], integer[], bigint[])
from public, anon, authenticated;
