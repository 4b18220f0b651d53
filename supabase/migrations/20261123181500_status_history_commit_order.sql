-- A campaign's status history is recorded in the order its changes took effect: changed_at is never
-- earlier than the campaign's last recorded change, and ties are broken by id, drawn under the campaign's
-- row lock. Before, a transaction that began before a concurrent activation and cancelled after it
-- committed was recorded before the activation (now() is the transaction's start), leaving the cancelled
-- campaign an open stretch of activity.

create or replace function private.campaigns_record_status()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' or new.status <> old.status then
    insert into public.campaign_status_history (campaign_id, from_status, to_status, changed_at, changed_by, changed_by_role)
    values (new.id, case when tg_op = 'UPDATE' then old.status end, new.status,
            greatest(now(), (select max(h.changed_at) from public.campaign_status_history h
                               where h.campaign_id = new.id)),
            auth.uid(), coalesce(auth.role(), session_user));
  end if;
  return null;
end
$$;
