-- Who booked a ledger row, in words: the operator's email, for the admins who read every row and for the
-- operator themself; anyone else gets null. auth.users is not readable by the caller, hence definer.
create or replace function private.operator_email(operator_id uuid)
returns text
language sql
stable
security definer
set search_path = ''
as $$
  select u.email::text
  from auth.users u
  where u.id = operator_id
    and (u.id = (select auth.uid()) or (select private.is_admin()))
$$;

revoke execute on function private.operator_email(uuid) from public, anon;

grant execute on function private.operator_email(uuid) to authenticated, service_role;
