-- The orders list's search (GET /orders?search=) finds customers by part of their name or e-mail; an order
-- records when it was paid and refunded, so its page shows every step with its time.

alter table public.orders
  add column paid_at timestamptz,
  add column refunded_at timestamptz,
  add constraint orders_paid_after_order check (paid_at is null or paid_at >= ordered_at),
  add constraint orders_refunded_after_order check (refunded_at is null or refunded_at >= ordered_at);

create index customers_name_trgm_idx on public.customers using gin (name extensions.gin_trgm_ops);

create index customers_email_trgm_idx on public.customers using gin (email extensions.gin_trgm_ops);

-- The customers whose name or e-mail contains `pattern` (an ilike pattern, wildcards escaped by the caller),
-- as the caller may see them: every customer for an administrator, their own customer row otherwise. Security
-- definer so the trigram indexes serve the match: under RLS, ilike (not leakproof) may only filter rows the
-- policy has let through, a scan of every customer (100 ms at 100,000).
create or replace function private.customers_matching(pattern text)
returns setof uuid
language sql stable security definer set search_path = '' rows 20 as $$
  select c.id
  from public.customers c
  where (c.name ilike pattern or c.email ilike pattern)
    and ((select private.is_admin()) or c.user_id = (select auth.uid()))
$$;

revoke execute on function private.customers_matching(text) from public, anon;

grant execute on function private.customers_matching(text) to authenticated, service_role;
