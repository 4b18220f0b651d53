-- The orders list's search (GET /orders?search=) finds customers by part of their name or e-mail.

create index customers_name_trgm_idx on public.customers using gin (name extensions.gin_trgm_ops);

create index customers_email_trgm_idx on public.customers using gin (email extensions.gin_trgm_ops);
