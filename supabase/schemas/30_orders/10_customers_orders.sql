-- Customers and orders: shared by campaign attribution (revenue per day) and business health (RFM,
-- completion and on-time rates). Raw rows are for administrators; a signed-in customer sees only their
-- own profile and orders. Days are the store's days (private.store_day): `order_date` is derived once, by the
-- database.

create table public.customers (
  id uuid primary key default gen_random_uuid(),
  user_id uuid unique references auth.users (id) on delete set null,
  email text not null constraint customers_email_format check (email ~ '^[^@\s]+@[^@\s]+$' and char_length(email) <= 320),
  name text not null constraint customers_name_length check (char_length(name) between 1 and 200),
  created_at timestamptz not null default private.now(),
  updated_at timestamptz not null default private.now(),
  -- The name and e-mail in lower case, for the orders search (private.customer_matches): ilike lowers each
  -- row's text as it compares, most of a scan's cost when a search matches most customers.
  search_name text generated always as (lower(name)) stored,
  search_email text generated always as (lower(email)) stored
);

create unique index customers_email_key on public.customers (lower(email));

-- Trigram matching, for searches of part of a name (customers here, campaigns in 40_campaigns).
create extension if not exists pg_trgm with schema extensions;

-- The orders list's search finds customers by part of their name or e-mail (GET /orders?search=).
create index customers_search_name_trgm_idx on public.customers using gin (search_name extensions.gin_trgm_ops);

create index customers_search_email_trgm_idx on public.customers using gin (search_email extensions.gin_trgm_ops);

-- Whether a customer's name or e-mail contains `pattern` (a like pattern, wildcards escaped by the caller), in
-- any case: the orders search's one rule, given the customer's search_name and search_email. As ilike does,
-- both sides lower-cased, the rows' once, as they are written. Without a search_path, so it is inlined and the
-- planner sees the like itself, with its trigram indexes and its estimate of how many customers match.
create or replace function private.customer_matches(search_name text, search_email text, pattern text)
returns boolean
language sql immutable parallel safe as $$
  select search_name operator(pg_catalog.~~) pg_catalog.lower(pattern)
      or search_email operator(pg_catalog.~~) pg_catalog.lower(pattern)
$$;

-- The customers a search matches, as the caller may see them: every customer for an administrator, their own
-- customer row otherwise. Security definer so the trigram indexes serve the match: under RLS, ilike (not
-- leakproof) may only filter rows the policy has let through, a scan of every customer.
create or replace function private.customers_matching(pattern text)
returns setof uuid
language sql stable security definer set search_path = '' rows 20 as $$
  select c.id
  from public.customers c
  where private.customer_matches(c.search_name, c.search_email, pattern)
    and ((select private.is_admin()) or c.user_id = (select auth.uid()))
$$;

revoke execute on function private.customer_matches(text, text, text) from public, anon;

grant execute on function private.customer_matches(text, text, text) to authenticated, service_role;

revoke execute on function private.customers_matching(text) from public, anon;

grant execute on function private.customers_matching(text) to authenticated, service_role;

-- The statuses an order can have, written once. The column stays text, checked against this type: the
-- health and attribution readers compare it with text, and the type is what the API and console generate from.
create type public.order_status as enum ('pending', 'paid', 'shipped', 'delivered', 'completed', 'cancelled', 'refunded');

-- The statuses an order may be placed in, awaiting payment or paid: its lines are written then, and only then
-- (private.check_order_line). The API's and the console's list of them is generated from this type.
create type public.new_order_status as enum ('pending', 'paid');

create table public.orders (
  id uuid primary key default gen_random_uuid(),
  customer_id uuid not null references public.customers (id) on delete restrict,
  status text not null default 'pending'
    constraint orders_status_known check (status = any (enum_range(null::public.order_status)::text[])),
  -- `< 'Infinity'` keeps a number finite: PostgreSQL sorts NaN above every number, Infinity included, so NaN
  -- passes `>= 0` and fails this. Every numeric column of the schema asks it (test/database/finite-numbers.test.ts).
  total_amount numeric(12, 2) not null
    constraint orders_total_amount_not_negative check (total_amount >= 0 and total_amount < 'Infinity'),
  item_count integer not null default 1 constraint orders_item_count_positive check (item_count > 0),
  ordered_at timestamptz not null default private.now(),
  order_date date generated always as (private.store_day(ordered_at)) stored,
  -- The delivery date promised at checkout: on time means delivered by then.
  promised_at timestamptz,
  shipped_at timestamptz,
  delivered_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz,
  updated_at timestamptz not null default private.now(),
  -- When the payment came in and when it was paid back, as the store's jobs record them: an order's page
  -- shows every step with its time.
  paid_at timestamptz,
  refunded_at timestamptz,
  -- Until when the order counts in the figures (revenue, the RFM scores): for T in (ordered_at, counted_until],
  -- that is until its cancellation, always when never cancelled, never when refunded. The counted-order
  -- rule, written once; every figure reads it here.
  counted_until timestamptz generated always as (
    case when status = 'refunded' then '-infinity'::timestamptz else coalesce(cancelled_at, 'infinity'::timestamptz) end
  ) stored,
  -- Whether a refund after shipping put the order's goods back into stock (true) or left them out, damaged
  -- (false); null for any other order. A store job refunding by `update` sets it beside the status
  -- (30_orders/20_order_goods.sql).
  restocked boolean,
  constraint orders_delivery_after_order check (delivered_at is null or delivered_at >= ordered_at),
  constraint orders_paid_after_order check (paid_at is null or paid_at >= ordered_at),
  constraint orders_refunded_after_order check (refunded_at is null or refunded_at >= ordered_at),
  constraint orders_completed_has_time check (status <> 'completed' or completed_at is not null),
  constraint orders_cancelled_has_time check (status <> 'cancelled' or cancelled_at is not null)
);

create index orders_order_date_idx on public.orders (order_date) include (total_amount, status);

-- Whether an order is revenue from now on: the store's one revenue rule (docs/business-health.md, "Revenue"),
-- read by attribution's daily revenue, the health figures, the store's days and the orders list alike. An
-- order is revenue from its placing (pending payment included, as a store's sales report counts it) until
-- it is cancelled or refunded: orders.counted_until, the counted-order rule, says until when; an order
-- counts now when that is never (infinity). Kept days are summed once, so the test is timeless.
create or replace function private.counts_as_revenue(counted_until timestamptz)
returns boolean
language sql immutable parallel safe set search_path = '' as $$
  select counted_until = 'infinity'::timestamptz
$$;

revoke execute on function private.counts_as_revenue(timestamptz) from public, anon;

grant execute on function private.counts_as_revenue(timestamptz) to authenticated, service_role;

-- An order's place in the figures at a moment (docs/business-health.md), the one definition that business
-- health's windows, the store's days and the orders list read: counted (its revenue counts: neither refunded
-- nor cancelled by then), completed by then, cancelled by then, refunded (neither counted nor cancelled by
-- then: every order placed is exactly one of counted, cancelled and refunded), due (promised by then and not
-- cancelled) and on time among those. No `set search_path`, so that PostgreSQL inlines it into the query that
-- reads it, as if its columns were written out there (scripts/lib/advisors.mjs); it names nothing to resolve.
create or replace function private.order_figures_at(
  moment timestamptz, counted_until timestamptz, completed_at timestamptz, cancelled_at timestamptz,
  promised_at timestamptz, delivered_at timestamptz
)
returns table (counted boolean, completed boolean, cancelled boolean, refunded boolean, due boolean, on_time boolean)
language sql immutable parallel safe as $$
  select f.counted, f.completed, f.cancelled, not f.counted and not f.cancelled, f.due,
         f.due and coalesce(delivered_at <= promised_at, false)
  from (select counted_until >= moment as counted, coalesce(completed_at < moment, false) as completed,
               coalesce(cancelled_at < moment, false) as cancelled,
               coalesce(promised_at < moment, false) and not coalesce(cancelled_at < moment, false) as due) f
$$;

revoke execute on function private.order_figures_at(timestamptz, timestamptz, timestamptz, timestamptz, timestamptz,
  timestamptz) from public, anon;

grant execute on function private.order_figures_at(timestamptz, timestamptz, timestamptz, timestamptz, timestamptz,
  timestamptz) to authenticated, service_role;

-- An average order value: revenue over the orders it counts, rounded to the cent in decimal. Business
-- health's periods, the store's days and the orders list's summary all read it here.
create or replace function private.average_order_value(revenue numeric, counted_orders numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select round(revenue / nullif(counted_orders, 0), 2)
$$;

revoke execute on function private.average_order_value(numeric, numeric) from public, anon;

grant execute on function private.average_order_value(numeric, numeric) to authenticated, service_role;

-- The orders placed in a stretch of time, with every figure business health reads of them, from the
-- index alone (the last part of an hour a health report reads from the orders themselves).
create index orders_ordered_at_covering_idx on public.orders (ordered_at)
  include (customer_id, status, total_amount, cancelled_at, completed_at, promised_at, delivered_at);

-- The orders completed, promised or cancelled in the last part of an hour a health report reads from the
-- orders themselves (50_health/50_figures.sql); the promised ones from the index alone, also those a custom
-- period takes back as not yet due (50_health/55_custom_periods.sql).
create index orders_cancelled_at_idx on public.orders (cancelled_at) where cancelled_at is not null;

create index orders_completed_at_idx on public.orders (completed_at) where completed_at is not null;

create index orders_promised_at_idx on public.orders (promised_at) include (cancelled_at, delivered_at, order_date)
  where promised_at is not null;

create index orders_customer_idx on public.orders (customer_id, ordered_at desc);

create trigger customers_touch_updated_at
  before update on public.customers
  for each row execute function private.touch_updated_at();

create trigger orders_touch_updated_at
  before update on public.orders
  for each row execute function private.touch_updated_at();

alter table public.customers enable row level security;

alter table public.orders enable row level security;

create policy "customers see themselves, admins see all" on public.customers
  for select to authenticated
  using (user_id = (select auth.uid()) or (select private.is_admin()));

create policy "admins add customers" on public.customers
  for insert to authenticated
  with check ((select private.is_admin()));

create policy "admins change customers" on public.customers
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

create policy "admins remove customers" on public.customers
  for delete to authenticated
  using ((select private.is_admin()));

create policy "customers see their orders, admins see all" on public.orders
  for select to authenticated
  using (
    (select private.is_admin())
    or customer_id in (select c.id from public.customers c where c.user_id = (select auth.uid()))
  );

create policy "admins add orders" on public.orders
  for insert to authenticated
  with check ((select private.is_admin()));

create policy "admins change orders" on public.orders
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

create policy "admins remove orders" on public.orders
  for delete to authenticated
  using ((select private.is_admin()));

revoke all on public.customers, public.orders from anon;

-- Whether the caller's RLS shows every order, so the kept daily revenue is what they would sum.
create or replace function private.sees_all_orders()
returns boolean
language sql stable set search_path = '' as $$
  select (select private.is_admin())
      or exists (select 1 from pg_catalog.pg_roles r
                 where r.rolname = current_user and (r.rolsuper or r.rolbypassrls))
$$;

revoke execute on function private.sees_all_orders() from public, anon;

grant execute on function private.sees_all_orders() to authenticated, service_role;
