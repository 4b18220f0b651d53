-- Administrators are a database fact: a row in public.user_roles. One function reads it, for RLS
-- policies and for the SQL functions behind the edge functions alike, so revoking the row takes effect
-- on the caller's next statement.

create schema if not exists private;
grant usage on schema private to authenticated, service_role;

create table if not exists public.user_roles (
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null constraint user_roles_role_known check (role in ('admin')),
  granted_at timestamptz not null default now(),
  primary key (user_id, role)
);

alter table public.user_roles enable row level security;

-- Kept out of the API schema: it is a building block for policies, not an endpoint. Security definer so
-- a policy on user_roles itself can call it without recursing through that policy.
create or replace function private.is_admin()
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(auth.role() = 'service_role', false)
      or exists (
        select 1
        from public.user_roles
        where user_id = (select auth.uid())
          and role = 'admin'
      )
$$;

revoke execute on function private.is_admin() from public, anon;
grant execute on function private.is_admin() to authenticated, service_role;

drop policy if exists "users see their own roles, admins see all" on public.user_roles;
create policy "users see their own roles, admins see all" on public.user_roles
  for select to authenticated
  using (user_id = (select auth.uid()) or (select private.is_admin()));

drop policy if exists "admins grant roles" on public.user_roles;
create policy "admins grant roles" on public.user_roles
  for insert to authenticated
  with check ((select private.is_admin()));

drop policy if exists "admins revoke roles" on public.user_roles;
create policy "admins revoke roles" on public.user_roles
  for delete to authenticated
  using ((select private.is_admin()));

-- Keeps `updated_at` honest whoever writes the row.
create or replace function private.touch_updated_at()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
