-- The business-health report (seed 03 area B): figures gathered in SQL (50_figures.sql), scored by the
-- pure functions of 40_scoring.sql, with the trend and the insights (58_insights.sql), as one JSON document.
-- Computed at every call.

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

revoke execute on function private.health_checked_metrics(jsonb, numeric) from public, anon, authenticated;

grant execute on function private.health_checked_metrics(jsonb, numeric) to service_role;

-- The instants a version 2.0 report read: its window and the one it compared it with.
create or replace function private.health_window(
  period text, window_from timestamptz, window_before timestamptz, compare_from timestamptz, compare_before timestamptz
)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object('period', period, 'from', private.api_timestamp(window_from),
                            'before', private.api_timestamp(window_before),
                            'compareFrom', private.api_timestamp(compare_from),
                            'compareBefore', private.api_timestamp(compare_before))
$$;

revoke execute on function private.health_window(text, timestamptz, timestamptz, timestamptz, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_window(text, timestamptz, timestamptz, timestamptz, timestamptz) to service_role;

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

revoke execute on function private.health_week_trend(timestamptz, numeric, bigint, bigint) from public, anon, authenticated;

grant execute on function private.health_week_trend(timestamptz, numeric, bigint, bigint) to service_role;

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

revoke execute on function private.health_report_window(integer, timestamptz, date, date, date, date)
  from public, anon, authenticated;

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
  customer_quality := private.health_customer_quality((f ->> 'average_rfm')::numeric);
  operational_efficiency := private.health_operational_efficiency((f ->> 'completed')::numeric, (f ->> 'orders')::numeric);
  support_effectiveness := private.health_support_effectiveness((f ->> 'resolved')::numeric, (f ->> 'tickets')::numeric,
                                                                (f ->> 'response_score')::numeric);
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
        private.health_percent_change(customer_quality,
                                      private.health_customer_quality((f ->> 'previous_average_rfm')::numeric)),
        private.health_percent_change(operational_efficiency, private.health_operational_efficiency(
                                      (f ->> 'previous_completed')::numeric, (f ->> 'previous_orders')::numeric)));
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
  private.health_report(text, boolean, boolean, boolean, timestamptz, text, integer, boolean, date, date, date, date),
  private.health_report_from(jsonb)
from public, anon, authenticated;

grant execute on function
  private.health_report(text, boolean, boolean, boolean, timestamptz, text, integer, boolean, date, date, date, date)
to service_role;

-- The report's one entry point, in a schema PostgREST does not expose, so the edge function's rate limits
-- cannot be walked around through /rest/v1/rpc. Security definer, as anonymous callers get scores of rows they
-- may not read: it returns scores, ratios and percentages only. It folds the change log first, so every order
-- write committed before it began counts.
create schema if not exists health;

grant usage on schema health to anon, authenticated, service_role;

create or replace function health.business_health(
  period text,
  include_system boolean,
  include_trends boolean,
  include_insights boolean,
  language text default 'zh-TW',
  version integer default 1,
  from_day date default null,
  to_day date default null,
  compare text default null,
  compare_from date default null,
  compare_to date default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  -- A custom period's store days, checked, and those of the one it is compared with.
  first_day date;
  last_day date;
  compare_first date;
  compare_last date;
begin
  -- A signed token whose account is gone or banned no longer speaks for anyone.
  if auth.role() = 'authenticated' then
    if private.user_standing((select auth.uid())) <> 'active' then
      perform private.raise_api_error(403, 'PERMISSION_DENIED', 'This account may not view business health');
    end if;
  elsif coalesce(auth.role(), '') not in ('anon', 'service_role') then
    perform private.raise_api_error(403, 'PERMISSION_DENIED', 'This role may not view business health');
  end if;
  if period = 'custom' and version >= 2 then
    select * into first_day, last_day, compare_first, compare_last
    from private.health_custom_days(from_day, to_day, compare, compare_from, compare_to);
  end if;
  perform private.fold_order_changes(true);
  -- Campaigns are named to the callers who may read them (signed-in users and the service key).
  return private.health_report(period, include_system, include_trends, include_insights, private.now(), language,
                               version, auth.role() in ('authenticated', 'service_role'), first_day, last_day,
                               compare_first, compare_last);
end
$$;

revoke execute on function health.business_health(text, boolean, boolean, boolean, text, integer, date, date, text, date, date)
from public;

grant execute on function health.business_health(text, boolean, boolean, boolean, text, integer, date, date, text, date, date)
to anon, authenticated, service_role;

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

revoke execute on function health.business_figures(text, date, date, text, date, date) from public, anon;

grant execute on function health.business_figures(text, date, date, text, date, date) to authenticated, service_role;

-- The store's today so far and yesterday (store days, private.store_day), for administrators and the
-- service key: each day's orders as the figures route and the orders list count a window, as of now (a
-- cancellation or refund since the day ended takes the order out of its day's revenue, as it does out of
-- attribution's daily revenue and the orders list's day). Read from the orders themselves over the ordered_at index: a day is a few
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
                 'completed', f.completed, 'cancelled', f.cancelled, 'refunded', f.refunded))
        from (values ('today', today, private.store_day_start(today), as_of),
                     ('yesterday', today - 1, private.store_day_start(today - 1), private.store_day_start(today)))
             d(name, day, first, until)
        cross join lateral (
          select coalesce(sum(o.total_amount) filter (where k.counted), 0) as revenue,
                 count(*) filter (where k.counted) as counted_orders,
                 count(*) as orders,
                 count(*) filter (where k.completed) as completed,
                 count(*) filter (where k.cancelled) as cancelled,
                 count(*) filter (where k.refunded) as refunded
          from public.orders o
          cross join lateral private.order_figures_at(as_of, o.counted_until, o.completed_at, o.cancelled_at,
                                                      o.promised_at, o.delivered_at) k
          where o.ordered_at >= d.first and o.ordered_at < d.until) f);
end
$$;

revoke execute on function health.business_days() from public, anon;

grant execute on function health.business_days() to authenticated, service_role;
