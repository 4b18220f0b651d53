-- The ticket figures sum the response times as intervals and score them once (issue 34, the 90-day
-- report's growth with the store): scoring each ticket in numeric was three quarters of their cost. The
-- response bounds are written once, in private.health_response_bounds.

drop function private.health_average_response_score(numeric[]);

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

revoke execute on function private.health_response_bounds(), private.health_average_response_score(bigint, interval)
from public, anon, authenticated;

grant execute on function private.health_response_bounds(), private.health_average_response_score(bigint, interval)
to service_role;

-- Tickets opened in the window. Resolved means resolved before `as_of`; an unanswered ticket's response
-- time is the time it has waited so far. The response times are summed as intervals, exact and native,
-- and scored once (private.health_average_response_score), not ticket by ticket in numeric, which was
-- three quarters of a 90-day report's ticket figures.
create or replace function private.health_ticket_figures(as_of timestamptz, days integer)
returns table (
  tickets bigint, resolved bigint, rated bigint, average_rating numeric,
  response_score numeric, average_response_hours numeric
)
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
declare
  bounds record := private.health_response_bounds();
begin
  return query
  with t as (
    select t.resolved_at < as_of as is_resolved, t.satisfaction_rating,
           least(t.first_response_at, as_of) - t.opened_at as response_time
    from public.support_tickets t
    where t.opened_at >= as_of - make_interval(hours => 24 * days) and t.opened_at < as_of
  )
  select count(*),
         count(*) filter (where t.is_resolved),
         count(t.satisfaction_rating) filter (where t.is_resolved),
         avg(t.satisfaction_rating) filter (where t.is_resolved),
         private.health_average_response_score(count(*), sum(least(greatest(t.response_time, bounds.best), bounds.worst))),
         extract(epoch from sum(t.response_time)) / 3600 / nullif(count(*), 0)
  from t;
end
$$;
