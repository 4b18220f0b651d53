-- The kept orders-list figures (private.order_list_sums, private.customer_order_figures_now) read an order's
-- figures from private.order_figures_at, as business health and the store's days do; and the trend's week is
-- one definition (private.health_week_days, private.health_week) where 7 and '168 hours' were written out.
-- Every answer is unchanged. private.campaigns_rules only has its lock's comment shortened.

-- A batch's signed sums by store day (key_date) and by customer (key_customer), in one pass: placed, counted,
-- revenue, completed, cancelled, refunded, for customers the latest day among the versions added and among those
-- removed, and due (promised a delivery, not cancelled) and on time. Each order's figures are those it has once
-- every moment it records has passed (private.order_figures_at as of infinity): the kept figures are read as
-- of now only while no order records a completion or cancellation still to come (kept_orders_summary).
create or replace function private.order_list_sums(changes private.order_changes[])
returns table (key_date date, key_customer uuid, orders integer, counted_orders integer, revenue numeric,
               completed integer, cancelled integer, refunded integer, added_last date, removed_last date,
               promised integer, on_time integer)
language sql immutable set search_path = '' as $$
  select c.order_date, c.customer_id, sum(c.sign)::integer,
         coalesce(sum(c.sign) filter (where k.counted), 0)::integer,
         coalesce(sum(c.sign * c.total_amount) filter (where k.counted), 0),
         coalesce(sum(c.sign) filter (where k.completed), 0)::integer,
         coalesce(sum(c.sign) filter (where k.cancelled), 0)::integer,
         coalesce(sum(c.sign) filter (where k.refunded), 0)::integer,
         max(c.order_date) filter (where c.sign > 0), max(c.order_date) filter (where c.sign < 0),
         coalesce(sum(c.sign) filter (where k.due), 0)::integer,
         coalesce(sum(c.sign) filter (where k.on_time), 0)::integer
  from unnest(changes) c
  cross join lateral private.order_figures_at('infinity', c.counted_until, c.completed_at, c.cancelled_at,
                                              c.promised_at, c.delivered_at) k
  group by grouping sets ((c.order_date), (c.customer_id))
$$;

-- The figures of `customers` (those with orders) summed from their orders as they are now: each customer's
-- orders by the customer index (an empty list reads nothing, where `= any` could scan every order).
create or replace function private.customer_order_figures_now(customers uuid[])
returns setof private.customer_order_figures
language sql stable set search_path = '' as $$
  select c.id, count(*)::integer,
         (count(*) filter (where k.counted))::integer,
         coalesce(sum(o.total_amount) filter (where k.counted), 0),
         (count(*) filter (where k.completed))::integer,
         (count(*) filter (where k.cancelled))::integer,
         (count(*) filter (where k.refunded))::integer,
         max(o.order_date)
  from unnest(customers) c(id)
  join public.orders o on o.customer_id = c.id
  cross join lateral private.order_figures_at('infinity', o.counted_until, o.completed_at, o.cancelled_at,
                                              o.promised_at, o.delivered_at) k
  group by c.id
$$;

-- The trend's week, the shortest period's days: the figures of a longer period's last week, and the week
-- before them, are read for the trend (60_report.sql).
create or replace function private.health_week_days()
returns integer
language sql immutable parallel safe set search_path = '' as $$
  select private.health_period_days('7d')
$$;

-- The trend's week as an interval: 24 hours a day, so it is the same length whatever the session's time zone.
create or replace function private.health_week()
returns interval
language sql immutable parallel safe set search_path = '' as $$
  select make_interval(hours => 24 * private.health_week_days())
$$;

revoke execute on function private.health_week_days(), private.health_week() from public, anon, authenticated;

-- The 10-minute boundary a report as of `as_of` counts from: the start or the end of `as_of`'s 10 minutes,
-- whichever has fewer orders to read between it and `as_of` (either gives the same figures). The orders placed
-- a week before each part stand for those leaving a window, and counting stops once the choice is made, so a
-- busy moment costs a bounded count. Generic plans: each count is one index range, whatever the moment.
create or replace function private.health_boundary(as_of timestamptz)
returns timestamptz
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_generic_plan' as $$
declare
  part_start timestamptz := date_bin('10 minutes', as_of, timestamptz '2000-01-01 00:00+00');
  part_end timestamptz := part_start + interval '10 minutes';
  placed_later bigint;
  week_earlier bigint;
  week_later bigint;
  threshold bigint;
  placed_earlier bigint;
  week interval := private.health_week();
begin
  if as_of = part_start then
    return part_start;
  end if;
  select count(*) filter (where o.ordered_at < as_of - week),
         count(*) filter (where o.ordered_at >= as_of - week),
         (select count(*) from public.orders l where l.ordered_at >= as_of and l.ordered_at < part_end)
    into week_earlier, week_later, placed_later
  from public.orders o
  where o.ordered_at >= part_start - week and o.ordered_at < part_end - week;
  threshold := placed_later + 6 * (week_later - week_earlier);
  select count(*) into placed_earlier
  from (select from public.orders o where o.ordered_at >= part_start and o.ordered_at < as_of
        limit greatest(threshold, 0) + 1) x;
  return case when placed_earlier > threshold then part_end else part_start end;
end
$$;

-- The period's order figures and, for a period longer than a week, its last 7 days' (`week_*`, the
-- trend's current week). PL/pgSQL, so a week's report reads its window once: in a SQL function the
-- week's lateral read ran whatever its condition on `days`.
create or replace function private.health_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint,
  revenue numeric, previous_revenue numeric, week_orders bigint, week_completed bigint
)
language plpgsql stable set search_path = '' as $$
declare
  p record;
  w record;
begin
  select * into p from private.health_window_order_figures(as_of, days);
  if days > private.health_week_days() then
    select * into w from private.health_window_order_figures(as_of, private.health_week_days());
  else
    w := p;
  end if;
  return query select p.orders, p.completed, p.cancelled, p.due, p.on_time, p.revenue, p.previous_revenue, w.orders,
                      w.completed;
end
$$;

-- The period's customer figures and, for a period longer than a week, its last 7 days' (`week_*`).
create or replace function private.health_customer_figures(as_of timestamptz, days integer)
returns table (
  customers bigint, average_rfm numeric, repeat_customers bigint, week_customers bigint, week_average_rfm numeric
)
language plpgsql stable set search_path = '' as $$
declare
  p record;
  w record;
begin
  select * into p from private.health_window_customer_figures(as_of, days);
  if days > private.health_week_days() then
    select * into w from private.health_window_customer_figures(as_of, private.health_week_days());
  else
    w := p;
  end if;
  return query select p.customers, p.average_rfm, p.repeat_customers, w.customers, w.average_rfm;
end
$$;

-- The seeds' trend: the last 7 days' customer quality and operational efficiency before `as_of` (their
-- figures come with a report's, the same pass) against the 7 days before them, a report as of 7 days earlier.
create or replace function private.health_week_trend(
  as_of timestamptz, week_average_rfm numeric, week_completed bigint, week_orders bigint
)
returns jsonb
language sql stable set search_path = '' as $$
  select private.health_trend(
    private.health_percent_change(
      private.health_customer_quality(week_average_rfm),
      private.health_customer_quality((select f.average_rfm from private.health_customer_figures(w.week_ago, private.health_week_days()) f))),
    private.health_percent_change(
      private.health_operational_efficiency(week_completed, week_orders),
      coalesce((select private.health_operational_efficiency(f.completed, f.orders)
                from private.health_order_figures(w.week_ago, private.health_week_days()) f), 0)))
  from (select as_of - private.health_week() as week_ago) w
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

  -- A write that leaves a site-wide campaign active takes one lock first, so such writes run one at a time
  -- and the exclusion constraint never waits on another's uncommitted entry: two batches activating campaigns
  -- in opposite orders deadlocked on each other's entries. Other writes and reads do not take it.
  if tg_op = 'UPDATE' and new.status = 'active' and new.attribution_layer = 'site-wide' and new.deleted_at is null then
    perform pg_advisory_xact_lock(hashtext('public.campaigns: one site-wide campaign active per date'));
  end if;
  return new;
end
$$;
