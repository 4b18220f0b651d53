-- The API roles hold only what the project uses (test/database/privileges.test.ts): Supabase's default
-- privileges gave anon, authenticated and service_role every privilege on every table and sequence in
-- public, including TRUNCATE (bypasses RLS), TRIGGER (a caller's trigger runs as the writer), REFERENCES,
-- MAINTAIN and setval on sequences.

-- Future objects.
alter default privileges in schema public revoke all on tables from anon;

alter default privileges in schema public
  revoke truncate, references, trigger, maintain on tables from authenticated, service_role;

alter default privileges in schema public revoke all on sequences from anon, authenticated, service_role;

-- Existing objects.
revoke all on all tables in schema public from anon;

revoke truncate, references, trigger, maintain on all tables in schema public from authenticated, service_role;

revoke all on all sequences in schema public from anon, authenticated, service_role;

revoke update on public.user_roles from authenticated, service_role;

revoke delete on public.campaign_type_config from authenticated, service_role;
