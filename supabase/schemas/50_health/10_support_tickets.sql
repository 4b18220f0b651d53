-- Support tickets: the source of the support and satisfaction dimensions of business health. Every
-- timestamp the formulas need is a column, so a report "as of" any past moment reads the tickets as they
-- stood then (a ticket resolved later is open in an earlier report). Raw rows are for administrators.

create table public.support_tickets (
  id uuid primary key default gen_random_uuid(),
  customer_id uuid references public.customers (id) on delete set null,
  order_id uuid references public.orders (id) on delete set null,
  subject text not null constraint support_tickets_subject_length check (char_length(subject) between 1 and 300),
  status text not null default 'open'
    constraint support_tickets_status_known check (status in ('open', 'pending', 'resolved', 'closed')),
  opened_at timestamptz not null default private.now(),
  first_response_at timestamptz,
  resolved_at timestamptz,
  -- 1 (very unhappy) to 5 (very happy), given by the customer after resolution; null when not rated.
  satisfaction_rating smallint constraint support_tickets_rating_range check (satisfaction_rating between 1 and 5),
  created_at timestamptz not null default private.now(),
  updated_at timestamptz not null default private.now(),
  constraint support_tickets_response_after_open check (first_response_at is null or first_response_at >= opened_at),
  constraint support_tickets_resolved_after_open check (resolved_at is null or resolved_at >= opened_at),
  constraint support_tickets_resolved_has_time check (status not in ('resolved', 'closed') or resolved_at is not null)
);

create index support_tickets_opened_at_covering_idx on public.support_tickets (opened_at)
  include (first_response_at, resolved_at, satisfaction_rating);

create index support_tickets_customer_idx on public.support_tickets (customer_id);

create index support_tickets_order_idx on public.support_tickets (order_id);

create trigger support_tickets_touch_updated_at
  before update on public.support_tickets
  for each row execute function private.touch_updated_at();

alter table public.support_tickets enable row level security;

create policy "admins read tickets" on public.support_tickets
  for select to authenticated
  using ((select private.is_admin()));

create policy "admins add tickets" on public.support_tickets
  for insert to authenticated
  with check ((select private.is_admin()));

create policy "admins change tickets" on public.support_tickets
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

create policy "admins remove tickets" on public.support_tickets
  for delete to authenticated
  using ((select private.is_admin()));

revoke all on public.support_tickets from anon;
