-- An order's versions cancel out for its customer's rescoring only within the transaction that wrote them
-- (issue 34). A rescoring walks the orders as they are, so a fold may have seen an order whose change it had
-- not taken yet; that change and its undoing by a later transaction, folded together, must still rescore
-- the customer. The log carries the transaction that wrote each row.

alter table private.order_changes
  add column transaction_id xid8 not null default pg_catalog.pg_current_xact_id();

-- The customers whose counted orders (orders.counted_until after ordered_at) changed in what
-- RFM reads of them (time, amount, cancellation), each with the earliest moment that changed: before it,
-- their scores stay as they were. An order's version out and in with the same inputs cancel out, but only
-- within the transaction that wrote both (a move from paid to shipped, an order placed and deleted): a
-- rescoring walks the orders as they are, so an earlier fold may have seen a version whose change comes
-- in this batch with its undoing from a later transaction, and the customer must be walked again.
create or replace function private.changed_customer_scores(changes private.order_changes[])
returns table (customer_id uuid, first_change timestamptz)
language plpgsql stable set search_path = '' as $$
begin
  return query
    select c.customer_id, min(c.ordered_at)
    from (
      select v.order_id, v.customer_id, v.ordered_at, v.counted_until, v.total_amount
      from unnest(changes) v
      where v.counted_until > v.ordered_at
      group by v.transaction_id, v.order_id, v.customer_id, v.ordered_at, v.counted_until, v.total_amount
      having sum(v.sign) <> 0
    ) c
    group by c.customer_id;
end
$$;
