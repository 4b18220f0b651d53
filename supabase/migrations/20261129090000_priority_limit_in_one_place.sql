-- The most a priority may be, written once for zod and the console: private.max_priority(), generated into
-- Limits.priority.

-- The most a priority may be, a campaign type's default and a campaign's own (from 0): `npm run types`
-- generates it into `Limits.priority` of database.types.ts, which zod and the console read. The CHECKs write it
-- out (test/database/campaign-types.test.ts holds them equal), as a call there is evaluated at every write.
create or replace function private.max_priority()
returns integer
language sql immutable parallel safe set search_path = '' as $$
  select 100
$$;

revoke execute on function private.max_priority() from public, anon, authenticated, service_role;
