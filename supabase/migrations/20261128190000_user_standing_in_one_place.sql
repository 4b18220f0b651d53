-- The user's standing read in one place (private.user_standing), by the functions' token check and by
-- health.business_health, which now also refuses a soft-deleted user's token reached through supabase-js.

-- Whether a signed-in user may still act, as Supabase Auth records it: 'gone' when the account is deleted
-- (or soft-deleted, which keeps the row), 'banned' while `banned_until` lies ahead, else 'active'. A signed
-- token outlives its user until it expires; this is the one reading of the user's standing, for the
-- functions' token check (_shared/auth.ts) and for SQL that supabase-js reaches directly.
create or replace function private.user_standing(user_id uuid)
returns text
language sql stable security definer set search_path = '' as $$
  select case when u.id is null then 'gone' when u.banned_until > private.now() then 'banned' else 'active' end
  from (select) one
  left join auth.users u on u.id = user_standing.user_id and u.deleted_at is null
$$;

revoke execute on function private.user_standing(uuid) from public, anon, authenticated;

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
