-- The business health report's lists, each written once, here: the SQL below reads them from here, and the edge
-- function (zod), the OpenAPI document and the console read them through the generated types (`npm run types`,
-- supabase/functions/_shared/enums.ts), as every list of values the API has.

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

-- The periods a version of the report takes, as its refusals list them: 1.0 the rolling ones, 2.0 custom too.
create or replace function private.health_periods(version integer)
returns jsonb
language sql immutable parallel safe set search_path = '' as $$
  select jsonb_agg(p order by p)
  from unnest(pg_catalog.enum_range(null::public.health_period)) p
  where version >= 2 or p <> 'custom'
$$;

revoke execute on function private.health_window_days(), private.health_period_days(text),
  private.health_week_days(), private.health_week(), private.health_periods(integer) from public, anon, authenticated;
