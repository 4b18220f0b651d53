-- The per-customer order history (20261123003500) is derived data like the daily revenue and the
-- campaigns' stretches of activity: its triggers now fire always too, also for orders written with
-- session_replication_role = replica (see private.keep_derived_data). Same triggers, same names.
begin;
lock table public.orders in share row exclusive mode;
select private.keep_derived_data('public.orders', 'orders_history', 'private.orders_maintain_history');
commit;
