-- Runtime state of the business-health-analytics function, kept in PostgreSQL so every function
-- instance shares it: the rate-limit counters and the log of the function's own request outcomes (the
-- source of the `system` dimension). Both live in `private`, out of the API: only the function's own
-- connection writes them; administrators may read them.

-- One row per caller bucket and fixed 60-second window. A request is one atomic upsert on this row, so
-- concurrent requests in any number of instances count exactly.
create table private.rate_limit_windows (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null default 0,
  primary key (bucket, window_start)
);

-- Stale windows are pruned by age, across buckets.
create index rate_limit_windows_window_start_idx on private.rate_limit_windows (window_start);

alter table private.rate_limit_windows enable row level security;

create policy "admins read rate limits" on private.rate_limit_windows
  for select to authenticated
  using ((select private.is_admin()));

-- Counts this request in the caller's current window and says whether it is over the limit. The window
-- is fixed: [minute start, minute start + 60 s); `retry_after` is the whole seconds until it ends (≥ 1).
-- One in a hundred calls also prunes windows older than two minutes, so abandoned buckets do not pile up.
create or replace function private.hit_rate_limit(p_bucket text, p_limit integer)
returns table (hits integer, allowed boolean, retry_after integer)
language plpgsql set search_path = '' as $$
declare
  v_now timestamptz := private.clock_timestamp();
  v_window timestamptz := to_timestamp(floor(extract(epoch from v_now) / 60) * 60);
begin
  if random() < 0.01 then
    delete from private.rate_limit_windows w where w.window_start < v_window - interval '2 minutes';
  end if;
  insert into private.rate_limit_windows as w (bucket, window_start, hits)
  values (p_bucket, v_window, 1)
  on conflict (bucket, window_start) do update set hits = w.hits + 1
  returning w.hits into hits;
  allowed := hits <= p_limit;
  retry_after := greatest(1, ceil(extract(epoch from (v_window + interval '60 seconds') - v_now)))::integer;
  return next;
end
$$;

revoke execute on function private.hit_rate_limit(text, integer) from public, anon, authenticated;

grant execute on function private.hit_rate_limit(text, integer) to service_role;

-- What the function answered and how long it took, one row per request, written after the response.
create table private.function_requests (
  id bigint generated always as identity primary key,
  function_name text not null,
  status smallint not null,
  duration_ms integer not null constraint function_requests_duration_not_negative check (duration_ms >= 0),
  at timestamptz not null default private.now()
);

create index function_requests_at_idx on private.function_requests (function_name, at);

alter table private.function_requests enable row level security;

create policy "admins read request outcomes" on private.function_requests
  for select to authenticated
  using ((select private.is_admin()));

-- Records one outcome. One in a hundred calls also prunes outcomes older than a day: the system
-- dimension reads only the last 15 minutes.
create or replace function private.record_function_request(p_function text, p_status integer, p_duration_ms integer)
returns void
language plpgsql set search_path = '' as $$
begin
  if random() < 0.01 then
    delete from private.function_requests r where r.at < (select private.now()) - interval '1 day';
  end if;
  insert into private.function_requests (function_name, status, duration_ms)
  values (p_function, p_status, greatest(p_duration_ms, 0));
end
$$;

revoke execute on function private.record_function_request(text, integer, integer) from public, anon, authenticated;

grant execute on function private.record_function_request(text, integer, integer) to service_role;

grant select on private.function_requests to service_role;
