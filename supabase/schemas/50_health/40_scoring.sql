-- The business-health formulas as pure SQL functions of already aggregated figures, so each one is
-- tested on exact hand-computed numbers and the report only gathers figures and calls them.
-- docs/business-health.md states every floor, target and weight, with a worked example.

-- 0 when x is at or below `floor_at`, 1 at or above `target`, linear between. With target < floor_at the
-- scale runs downwards (lower is better, e.g. hours or milliseconds).
create or replace function private.health_scale(x numeric, floor_at numeric, target numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select greatest(0, least(1, (x - floor_at) / (target - floor_at)))
$$;

-- CONTRACT §3B: bands by lower bound on the unrounded score, so 89.99 is 良好 and 90 is 優秀.
create or replace function private.health_rating(score numeric)
returns text
language sql immutable parallel safe set search_path = '' as $$
  select case
    when score >= 90 then '優秀'
    when score >= 75 then '良好'
    when score >= 60 then '普通'
    when score >= 40 then '需改善'
    else '待加強'
  end
$$;

-- The report's fixed words (the ratings above, the trend's descriptions below) in the language asked for:
-- the seeds' Traditional Chinese, which is also the key, or English (`en`).
create or replace function private.health_word(word text, language text)
returns text
language sql immutable parallel safe set search_path = '' as $$
  select case when language = 'en' then
    case word
      when '優秀' then 'Excellent'
      when '良好' then 'Good'
      when '普通' then 'Fair'
      when '需改善' then 'Needs improvement'
      when '待加強' then 'Poor'
      when '業務表現持續改善' then 'The business keeps improving'
      when '需要關注業務指標下滑' then 'The business figures are falling: look into them'
      when '業務表現穩定' then 'The business is steady'
      when '本期沒有進行中的活動' then 'No campaign ran in this period'
      when '本期的活動沒有花費' then 'The campaigns of this period spent nothing'
      else word
    end
  else word end
$$;

-- Marketing (version 2.0): ROAS, the revenue attribution gives the window's campaigns ÷ what they spent, on a
-- scale from 1 (the campaigns bring back only what they cost: 0) to 3 (healthy: 10).
create or replace function private.health_marketing_score(roas numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select 10 * private.health_scale(roas, 1, 3)
$$;

-- Percent change from `previous` to `current`; from 0 to a positive value is 100, from 0 to 0 is 0.
create or replace function private.health_percent_change(current_value numeric, previous_value numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select case
    when previous_value = 0 then case when current_value > 0 then 100 else 0 end
    else (current_value - previous_value) / previous_value * 100
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

-- Scoring a population in one call. The formula functions carry `set search_path = ''`, which keeps
-- PostgreSQL from inlining them, so a call per customer or per ticket would cost a function call each. The
-- formulas live in the population functions, written over arrays; the per-item functions call them with
-- one element, so there is one definition of each formula and the per-item tests check it.

-- Average RFM over customers (recency days, orders and spend in the year, element by element), by the
-- bands of private.rfm_bands (30_figure_changes.sql): R counts the recency bands the last order is within
-- (on the band's day itself still within). The report reads the RFM figures from the kept score changes
-- (35_customer_scores.sql), which apply the same bands to each customer's counts;
-- test/database/business-health-rollups.test.ts holds them to this formula.
create or replace function private.health_average_rfm_score(recency_days numeric[], orders bigint[], spend numeric[])
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select avg((1 + width_bucket(-c.recency_days, b.negated_recency)
            + 1 + width_bucket(c.orders, b.frequency_band_orders::bigint[])
            + 1 + width_bucket(c.spend, b.spend_bands))::numeric / 3)
  from unnest(recency_days, orders, spend) c(recency_days, orders, spend)
  cross join (select array(select -d::numeric from unnest(r.recency_band_days) d order by 1) as negated_recency,
                     r.frequency_band_orders, r.spend_bands
              from private.rfm_bands() r) b
$$;

create or replace function private.health_rfm_score(recency_days numeric, orders bigint, spend numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select private.health_average_rfm_score(array[recency_days], array[orders], array[spend])
$$;

-- Response: a first answer within an hour scores 1, one after 24 hours 0, linear between (scale(hours, 24,
-- 1)). These bounds hold each ticket's response time; the average follows from how many tickets there are
-- and what their held times add up to, so the ticket figures (50_figures.sql) sum intervals, exact, instead
-- of scoring each ticket in numeric.
create or replace function private.health_response_bounds(out best interval, out worst interval)
language sql immutable parallel safe set search_path = '' as $$
  select interval '1 hour', interval '24 hours'
$$;

create or replace function private.health_average_response_score(tickets bigint, held_time interval)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select (tickets * extract(epoch from b.worst) - extract(epoch from held_time))
         / extract(epoch from b.worst - b.best) / nullif(tickets, 0)
  from private.health_response_bounds() b
$$;

create or replace function private.health_response_score(hours numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select private.health_average_response_score(1, least(greatest(make_interval(secs => hours * 3600), b.best), b.worst))
  from private.health_response_bounds() b
$$;

-- revenue: this period's revenue against the previous equal period. Target +10 % (score 10); floor half
-- of the previous period (score 0). No revenue is 0; revenue after none is the target met.
create or replace function private.health_revenue_score(current_revenue numeric, previous_revenue numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select case
    when current_revenue <= 0 then 0
    when previous_revenue <= 0 then 10
    else 10 * private.health_scale(current_revenue / previous_revenue, 0.5, 1.1)
  end
$$;

-- satisfaction: average rating (1 → 0, 5 → 1) weighs 0.7, resolution rate 0.3. No tickets is 0; tickets
-- with no rating are scored on resolution alone.
create or replace function private.health_satisfaction_score(average_rating numeric, resolution_rate numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select case
    when resolution_rate is null then 0
    when average_rating is null then 10 * resolution_rate
    else 10 * (0.7 * (average_rating - 1) / 4 + 0.3 * resolution_rate)
  end
$$;

-- fulfillment: completion rate and on-time rate, half each. No orders is 0; with no order due yet the
-- on-time half follows completion.
create or replace function private.health_fulfillment_score(completion_rate numeric, on_time_rate numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select case
    when completion_rate is null then 0
    else 10 * (0.5 * completion_rate + 0.5 * coalesce(on_time_rate, completion_rate))
  end
$$;

-- products: share of active products in stock weighs 0.6, share sold in the period 0.4. No product is 0.
create or replace function private.health_products_score(in_stock_share numeric, active_share numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select case when in_stock_share is null then 0 else 10 * (0.6 * in_stock_share + 0.4 * active_share) end
$$;

-- system: success rate of the function's own requests (0.5), their p95 latency (0.3; 500 ms → 1,
-- 5 s → 0) and database connection headroom (0.2; up to half the connections in use → 1, 95 % → 0).
create or replace function private.health_system_score(success_rate numeric, p95_ms numeric, connection_usage numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select 10 * (0.5 * success_rate
             + 0.3 * private.health_scale(p95_ms, 5000, 500)
             + 0.2 * private.health_scale(connection_usage, 0.95, 0.5))
$$;

-- Seed 03's score details, each 0-100 and 0 with no data: customer quality from the average RFM score
-- (1-5), operational efficiency from the orders completed, support effectiveness from the tickets resolved
-- and the average response score (0-1).
create or replace function private.health_customer_quality(average_rfm numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select coalesce(average_rfm / 5 * 100, 0)
$$;

create or replace function private.health_operational_efficiency(completed numeric, orders numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select coalesce(completed / nullif(orders, 0) * 100, 0)
$$;

create or replace function private.health_support_effectiveness(resolved numeric, tickets numeric, response_score numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select case when tickets = 0 then 0 else (resolved / tickets * 0.7 + response_score * 0.3) * 100 end
$$;

-- How far an insight can be trusted, from the number of observations behind it: 20 → 0.5, 180 → 0.9.
create or replace function private.health_confidence(observations bigint)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select round(observations::numeric / (observations + 20), 2)
$$;

revoke execute on function
  private.health_scale(numeric, numeric, numeric), private.health_rating(numeric), private.health_word(text, text),
  private.health_percent_change(numeric, numeric), private.health_trend(numeric, numeric),
  private.health_average_rfm_score(numeric[], bigint[], numeric[]), private.health_rfm_score(numeric, bigint, numeric),
  private.health_response_bounds(), private.health_average_response_score(bigint, interval),
  private.health_response_score(numeric),
  private.health_revenue_score(numeric, numeric), private.health_satisfaction_score(numeric, numeric),
  private.health_fulfillment_score(numeric, numeric), private.health_products_score(numeric, numeric),
  private.health_system_score(numeric, numeric, numeric), private.health_confidence(bigint),
  private.health_marketing_score(numeric), private.health_customer_quality(numeric),
  private.health_operational_efficiency(numeric, numeric), private.health_support_effectiveness(numeric, numeric, numeric)
from public, anon, authenticated;

grant execute on function
  private.health_scale(numeric, numeric, numeric), private.health_rating(numeric), private.health_word(text, text),
  private.health_percent_change(numeric, numeric), private.health_trend(numeric, numeric),
  private.health_average_rfm_score(numeric[], bigint[], numeric[]), private.health_rfm_score(numeric, bigint, numeric),
  private.health_response_bounds(), private.health_average_response_score(bigint, interval),
  private.health_response_score(numeric),
  private.health_revenue_score(numeric, numeric), private.health_satisfaction_score(numeric, numeric),
  private.health_fulfillment_score(numeric, numeric), private.health_products_score(numeric, numeric),
  private.health_system_score(numeric, numeric, numeric), private.health_confidence(bigint),
  private.health_marketing_score(numeric), private.health_customer_quality(numeric),
  private.health_operational_efficiency(numeric, numeric), private.health_support_effectiveness(numeric, numeric, numeric)
to service_role;
