-- Demo users (CONTRACT §0): an administrator and a customer. Tokens for them: `npm run token -- admin`
-- and `npm run token -- customer`. Re-running the seed changes nothing.
insert into auth.users (instance_id, id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
values
  ('00000000-0000-0000-0000-000000000000', '00000000-0000-4000-8000-000000000001', 'authenticated', 'authenticated',
   'admin@example.com', private.now(), '{"provider":"email","providers":["email"]}', '{"name":"Demo Admin"}', private.now(), private.now()),
  ('00000000-0000-0000-0000-000000000000', '00000000-0000-4000-8000-000000000002', 'authenticated', 'authenticated',
   'customer@example.com', private.now(), '{"provider":"email","providers":["email"]}', '{"name":"Demo Customer"}', private.now(), private.now())
on conflict (id) do nothing;

insert into public.user_roles (user_id, role)
values ('00000000-0000-4000-8000-000000000001', 'admin')
on conflict do nothing;
