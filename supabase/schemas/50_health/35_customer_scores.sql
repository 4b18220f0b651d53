-- Each customer's RFM score as their orders change (the customer half of 30_figure_changes.sql): which
-- customers a batch of the orders' change log concerns, and their rescoring, both run by the fold
-- (25_order_changes.sql).

-- The customers whose counted orders (not refunded, not cancelled at or before ordering) changed in what
-- RFM reads of them (time, amount, cancellation), each with the earliest moment that changed: before it,
-- their scores stay as they were. An order's version out and in with the same inputs cancel out.
create or replace function private.changed_customer_scores(changes private.order_changes[])
returns table (customer_id uuid, first_change timestamptz)
language plpgsql stable set search_path = '' as $$
begin
  return query
    select c.customer_id, min(c.ordered_at)
    from (
      select v.order_id, v.customer_id, v.ordered_at, v.cancelled_at, v.total_amount
      from unnest(changes) v
      where v.status <> 'refunded' and (v.cancelled_at is null or v.cancelled_at > v.ordered_at)
      group by v.order_id, v.customer_id, v.ordered_at, v.cancelled_at, v.total_amount
      having sum(v.sign) <> 0
    ) c
    group by c.customer_id;
end
$$;

-- Each of `customers`' RFM states from `first_changes` on (paired by position), walked from their counted
-- orders as they are now: one row per moment their counts change, with the state those counts give.
create or replace function private.customer_state_walk(customers uuid[], first_changes timestamptz[])
returns table (customer_id uuid, at timestamptz, state integer)
language plpgsql stable set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
#variable_conflict use_column
begin
  if cardinality(customers) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;

  return query
  with
  -- The changed customers' counted orders as they are now, from the first changed order's time on (before
  -- it nothing changed) with the orders still counted then; amounts in cents, exact in float8. First each
  -- customer's newest 256 (through orders_customer_idx): they are all the walk needs when they are all
  -- there is, or when those placed before the first change include 10 counted for their whole year with
  -- 20,000 of spend between them. While any older order is in a window, so are those 10, newer, so
  -- frequency and spend are in their top bands and recency is theirs: every state is the one the older
  -- orders would give. So a change at a customer's newest orders (a checkout) reads a bounded number of
  -- them, however long their history; anyone else's are all read.
  recent as materialized (
    select f.customer_id, f.first_change, r.ordered_at, r.cancelled_at, r.cents,
           r.ordered_at < f.first_change and (r.cancelled_at is null or r.cancelled_at >= r.ordered_at + interval '8760 hours')
             as settled_before
    from unnest(customers, first_changes) f(customer_id, first_change)
    cross join lateral (
      select o.ordered_at, o.cancelled_at, (o.total_amount * 100)::float8 as cents
      from public.orders o
      where o.customer_id = f.customer_id
        and o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
        and least(o.cancelled_at, o.ordered_at + interval '8760 hours') >= f.first_change
      order by o.ordered_at desc
      limit 256
    ) r
  ),
  bounded as (
    select r.customer_id
    from recent r
    group by r.customer_id
    having count(*) < 256
        or (count(*) filter (where r.settled_before) >= 10 and sum(r.cents) filter (where r.settled_before) >= 2000000)
  ),
  counted as materialized (
    select r.customer_id, r.first_change, r.ordered_at, r.cancelled_at, r.cents
    from recent r
    where r.customer_id in (select b.customer_id from bounded b)
    union all
    select o.customer_id, f.first_change, o.ordered_at, o.cancelled_at, (o.total_amount * 100)::float8 as cents
    from unnest(customers, first_changes) f(customer_id, first_change)
    join public.orders o on o.customer_id = f.customer_id
    where f.customer_id not in (select b.customer_id from bounded b)
      and o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
      and least(o.cancelled_at, o.ordered_at + interval '8760 hours') >= f.first_change
  ),
  -- Each changed customer's counts just before their first changed order, where now and then still agree:
  -- their orders placed before it and not yet out of each count. The walk below starts from them.
  base as (
    select c.customer_id,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '72 hours') >= c.first_change) as b3,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '168 hours') >= c.first_change) as b7,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '336 hours') >= c.first_change) as b14,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '720 hours') >= c.first_change) as b30,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '2160 hours') >= c.first_change) as b90,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '8760 hours') >= c.first_change) as b365,
           coalesce(sum(c.cents) filter (where c.ordered_at < c.first_change
                                           and least(c.cancelled_at, c.ordered_at + interval '8760 hours') >= c.first_change), 0)
             as bspend
    from counted c
    group by c.customer_id
  ),
  -- An order counts for T in (ordered_at, cancelled_at] (cancelled_at null: always), so among the last x
  -- days' orders for T in (ordered_at, least(cancelled_at, ordered_at + x)]: at ordered_at (kind 0) it enters
  -- every count (3, 7, 14, 30, 90 and 365 days, and the year's spend), then leaves each at its end (kinds 1
  -- to 6). The steps from the customer's first changed order on, generated customer by customer, so the walk
  -- below sorts each customer's steps on their own.
  counted_steps (customer_id, at, kind, cents) as (
    select c.customer_id, x.at, x.kind, c.cents
    from (select * from counted order by customer_id) c
    cross join generate_series(0, 6) k(kind)
    cross join lateral (select k.kind, case k.kind when 0 then c.ordered_at
                                      else least(c.cancelled_at, c.ordered_at + (array[interval '72 hours', interval '168 hours',
                                           interval '336 hours', interval '720 hours', interval '2160 hours',
                                           interval '8760 hours'])[k.kind]) end as at) x
    where x.at >= c.first_change
  ),
  -- The counts after each moment (all its steps), on top of the customer's base, and the state they give.
  walked as (
    select c.customer_id, c.at,
           case when c.n90 <= 0 then 0
                else 25 * (case when c.n3 > 0 then 5 when c.n7 > 0 then 4
                                when c.n14 > 0 then 3 when c.n30 > 0 then 2 else 1 end)
                     + 5 * (case when c.n365 >= 10 then 4 when c.n365 >= 6 then 3
                                 when c.n365 >= 3 then 2 when c.n365 >= 2 then 1 else 0 end)
                     + (case when c.nspend >= 2000000 then 4 when c.nspend >= 1000000 then 3
                             when c.nspend >= 500000 then 2 when c.nspend >= 100000 then 1 else 0 end) end as state
    from (
      select r.customer_id, r.at,
             b.b3 + r.n3 as n3, b.b7 + r.n7 as n7, b.b14 + r.n14 as n14, b.b30 + r.n30 as n30,
             b.b90 + r.n90 as n90, b.b365 + r.n365 as n365, b.bspend + r.nspend as nspend
      from (
        select s.customer_id, s.at,
               sum(case s.kind when 0 then 1 when 1 then -1 else 0 end) over w as n3,
               sum(case s.kind when 0 then 1 when 2 then -1 else 0 end) over w as n7,
               sum(case s.kind when 0 then 1 when 3 then -1 else 0 end) over w as n14,
               sum(case s.kind when 0 then 1 when 4 then -1 else 0 end) over w as n30,
               sum(case s.kind when 0 then 1 when 5 then -1 else 0 end) over w as n90,
               sum(case s.kind when 0 then 1 when 6 then -1 else 0 end) over w as n365,
               sum(case s.kind when 0 then s.cents when 6 then -s.cents else 0 end) over w as nspend
        from counted_steps s
        window w as (partition by s.customer_id order by s.at)
      ) r
      join base b on b.customer_id = r.customer_id
    ) c
  )
  select w.customer_id, w.at, w.state from walked w;
end
$$;

-- Rescores `customers` from `first_changes` on (paired by position): for each, it walks their counted
-- orders as they are now from that moment, adds the difference between the state changes it finds and
-- those kept in `private.customer_scores` to the figure changes, and keeps the new ones. Their rows are
-- taken in customer order (two rescorings of several customers cannot deadlock), waiting for any other
-- transaction rescoring the same customers; the walk's statement then reads what that one committed.
create or replace function private.apply_customer_score_changes(customers uuid[], first_changes timestamptz[])
returns void
language plpgsql set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
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

  with
  -- The states from the first change on, now.
  walked as materialized (
    select w.customer_id, w.at, w.state from private.customer_state_walk(customers, first_changes) w
  ),
  -- The customers' states as kept until now: how many moments before the first change stay as they are,
  -- and the state then.
  kept as (
    select f.customer_id, f.first_change, s.changed_at, s.states, p.kept,
           coalesce(s.states[p.kept], 0) as state_before
    from unnest(customers, first_changes) f(customer_id, first_change)
    join private.customer_scores s on s.customer_id = f.customer_id
    cross join lateral (select case when cardinality(s.changed_at) = 0 then 0
                                    else width_bucket(f.first_change - interval '1 microsecond', s.changed_at) end as kept) p
  ),
  -- The moments the state changes from the first change on, now (from the walk) and before the statement
  -- (as kept), each with the state it leaves.
  now_moments as materialized (
    select m.customer_id, m.at, m.state, m.previous
    from (
      select w.customer_id, w.at, w.state,
             coalesce(lag(w.state) over (partition by w.customer_id order by w.at), k.state_before) as previous
      from walked w
      join kept k on k.customer_id = w.customer_id
    ) m
    where m.state <> m.previous
  ),
  then_moments as (
    select k.customer_id, e.at, e.state,
           coalesce(lag(e.state) over (partition by k.customer_id order by e.i), k.state_before) as previous
    from kept k
    cross join lateral unnest(k.changed_at[k.kept + 1:], k.states[k.kept + 1:]) with ordinality e(at, state, i)
  ),
  -- The customers' states from now on: what stays before the first change, then the walk's moments (a
  -- customer left with none has none).
  rescored_states as (
    select x.customer_id, coalesce(array_agg(x.at order by x.at) filter (where x.at is not null), '{}') as changed_at,
           coalesce(array_agg(x.state order by x.at) filter (where x.at is not null), '{}') as states
    from (
      select k.customer_id, null::timestamptz as at, null::smallint as state from kept k
      union all
      select k.customer_id, e.at, e.state
      from kept k cross join lateral unnest(k.changed_at[1:k.kept], k.states[1:k.kept]) e(at, state)
      union all
      select m.customer_id, m.at, m.state::smallint from now_moments m
    ) x
    group by x.customer_id
  ),
  -- `= any(customers)` as well, so the generic plan finds the rows by key whatever it guesses of the join.
  rescored as (
    update private.customer_scores s
    set changed_at = n.changed_at, states = n.states
    from rescored_states n
    where s.customer_id = n.customer_id and s.customer_id = any(customers)
    returning 1
  ),
  -- Customers entering (+1) and leaving (−1) each state, by hour: now's moments minus then's.
  state_changes as (
    select date_bin('1 hour', c.at, timestamptz '2000-01-01 00:00+00') as hour, c.state, sum(c.n) as n
    from (
      select m.at, m.state, 1 as n from now_moments m
      union all
      select m.at, m.previous, -1 from now_moments m
      union all
      select m.at, m.state, -1 from then_moments m
      union all
      select m.at, m.previous, 1 from then_moments m
    ) c
    where c.state <> 0
    group by 1, 2
    having sum(c.n) <> 0
  ),
  state_figures as materialized (select * from private.health_rfm_state_figures()),
  rfm_changes as (
    select x.days, c.hour, sum(c.n * x.customers) as customers, sum(c.n * x.score_sum) as score_sum,
           sum(c.n * x.scores_1_mod_3) as scores_1_mod_3, sum(c.n * x.scores_2_mod_3) as scores_2_mod_3,
           sum(c.n * x.scores_of_3) as scores_of_3, sum(c.n * x.repeat_customers) as repeat_customers
    from state_changes c
    join state_figures x on x.state = c.state
    group by 1, 2
  )
  insert into private.health_figure_changes as f (
    days, hour, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3, repeat_customers)
  select c.days, c.hour, c.customers, c.score_sum, c.scores_1_mod_3, c.scores_2_mod_3, c.scores_of_3,
         c.repeat_customers
  from rfm_changes c
  where c.customers <> 0 or c.score_sum <> 0 or c.scores_1_mod_3 <> 0 or c.scores_2_mod_3 <> 0
     or c.scores_of_3 <> 0 or c.repeat_customers <> 0
  order by c.days, c.hour
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
  private.apply_order_figure_changes(private.order_changes[]),
  private.changed_customer_scores(private.order_changes[]),
  private.customer_state_walk(uuid[], timestamptz[]),
  private.apply_customer_score_changes(uuid[], timestamptz[])
from public, anon, authenticated;
