-- Thirty campaigns over the last 120 days (and a few ahead), overlapping across the three campaign
-- layers, with the customers and orders that give their days revenue. Dates are relative to today (UTC),
-- so the demo always has a recent past. Re-running changes nothing: ids derive from fixed keys.
--
-- The status history is the past the campaigns went through (activated on their start day, paused,
-- completed...), so it is written here with its real past timestamps. The history trigger would stamp
-- every row with now(); replica mode turns the triggers off for this seed only. The exclusion constraint
-- is not a trigger and still holds: the site-wide campaigns never overlap.

select set_config('session_replication_role', 'replica', false);

-- (key, name, type, start and end as days from today, status now, status moves as
-- [status, days from today, time of day UTC]; a null time is now()).
with plan (key, name, description, campaign_type, start_offset, end_offset, status, budget, moves) as (
  values
    (1, 'Spring Clearance', 'Store-wide end-of-season clearance.', 'clearance_event', -118, -105, 'completed', 120000,
      '[["active", -118, "08:00"], ["completed", -105, "23:00"]]'),
    (2, 'Mid-Year Anniversary', 'The mid-year anniversary event across the store.', 'anniversary_sale', -95, -81, 'completed', 300000,
      '[["active", -95, "08:00"], ["completed", -81, "23:00"]]'),
    (3, 'Summer Mega Sale', 'Store-wide summer shopping festival.', 'double_eleven', -70, -60, 'completed', 250000,
      '[["active", -70, "08:00"], ["completed", -60, "23:00"]]'),
    (4, 'Autumn Clearance', 'Clearance cut short when stock ran out.', 'clearance_event', -45, -38, 'cancelled', 80000,
      '[["active", -45, "08:00"], ["cancelled", -41, "15:00"]]'),
    (5, 'Store Anniversary', 'The yearly anniversary, store-wide.', 'anniversary_sale', -20, -8, 'completed', 400000,
      '[["active", -20, "08:00"], ["completed", -8, "23:00"]]'),
    (6, 'Year-End Festival', 'Store-wide year-end festival.', 'double_eleven', -5, 5, 'active', 350000,
      '[["active", -5, "08:00"]]'),
    (7, 'Next Season Clearance', 'Planned store-wide clearance.', 'clearance_event', 15, 25, 'draft', 90000, '[]'),
    (8, 'VIP Spring Preview', 'Early access to the spring range for VIP members.', 'vip_exclusive', -115, -100, 'completed', 60000,
      '[["active", -115, "08:00"], ["completed", -100, "23:00"]]'),
    (9, 'New Member Welcome Q3', 'First-order offer for members who joined this quarter.', 'new_member_welcome', -110, -50, 'completed', 45000,
      '[["active", -110, "08:00"], ["completed", -50, "23:00"]]'),
    (10, 'Birthday Month Summer', 'Birthday discounts for summer birthdays.', 'birthday_offer', -90, -60, 'completed', 30000,
      '[["active", -90, "08:00"], ["completed", -60, "23:00"]]'),
    (11, 'Win-back Wave 1', 'Offers for customers quiet for 90 days.', 'win_back', -85, -75, 'completed', 20000,
      '[["active", -85, "08:00"], ["completed", -75, "23:00"]]'),
    (12, 'VIP Summer Lounge', 'VIP offers; paused three days for a pricing error.', 'vip_exclusive', -65, -40, 'completed', 70000,
      '[["active", -65, "08:00"], ["paused", -50, "12:00"], ["active", -47, "09:00"], ["completed", -40, "23:00"]]'),
    (13, 'New Member Welcome Q4', 'First-order offer for members who joined this quarter.', 'new_member_welcome', -49, 10, 'active', 50000,
      '[["active", -49, "08:00"]]'),
    (14, 'Birthday Month Autumn', 'Birthday discounts for autumn birthdays; ended today.', 'birthday_offer', -30, 0, 'completed', 30000,
      '[["active", -30, "08:00"], ["completed", 0, null]]'),
    (15, 'Win-back Wave 2', 'Paused while the audience is rebuilt.', 'win_back', -25, -12, 'paused', 25000,
      '[["active", -25, "08:00"], ["paused", -15, "10:00"]]'),
    (16, 'VIP Year-End', 'Year-end offers for VIP members.', 'vip_exclusive', -3, 20, 'active', 80000,
      '[["active", -3, "08:00"]]'),
    (17, 'Win-back Wave 3', 'Planned win-back offers.', 'win_back', 5, 30, 'draft', 25000, '[]'),
    (18, 'Tea Flash Sale', 'Three days of tea deals.', 'category_flash_sale', -112, -108, 'completed', 15000,
      '[["active", -112, "08:00"], ["completed", -108, "23:00"]]'),
    (19, 'Oolong Brand Week', 'A week of Alishan oolong offers.', 'brand_week', -104, -98, 'completed', 12000,
      '[["active", -104, "08:00"], ["completed", -98, "23:00"]]'),
    (20, 'Spring Collection', 'Launch of the spring tea collection.', 'seasonal_collection', -100, -80, 'completed', 40000,
      '[["active", -100, "08:00"], ["completed", -80, "23:00"]]'),
    (21, 'Teaware Bundle', 'Teapot and cups together for less.', 'bundle_deal', -92, -70, 'completed', 18000,
      '[["active", -92, "08:00"], ["completed", -70, "23:00"]]'),
    (22, 'Snack Flash Sale', 'Two days of snack deals.', 'category_flash_sale', -68, -66, 'completed', 8000,
      '[["active", -68, "08:00"], ["completed", -66, "23:00"]]'),
    (23, 'Coffee Brand Week', 'A week of single-origin coffee offers.', 'brand_week', -58, -52, 'completed', 12000,
      '[["active", -58, "08:00"], ["completed", -52, "23:00"]]'),
    (24, 'Summer Collection', 'Launch of the summer collection.', 'seasonal_collection', -55, -30, 'completed', 40000,
      '[["active", -55, "08:00"], ["completed", -30, "23:00"]]'),
    (25, 'Gift Bundle', 'Cancelled before launch.', 'bundle_deal', -40, -35, 'cancelled', 10000,
      '[["cancelled", -42, "11:00"]]'),
    (26, 'Kettle Flash Sale', 'Three days of kettle deals.', 'category_flash_sale', -33, -31, 'completed', 9000,
      '[["active", -33, "08:00"], ["completed", -31, "23:00"]]'),
    (27, 'Autumn Collection', 'Launch of the autumn collection.', 'seasonal_collection', -28, 2, 'active', 45000,
      '[["active", -28, "08:00"]]'),
    (28, 'Mug Brand Week', 'A week of enamel mug offers.', 'brand_week', -10, -4, 'completed', 7000,
      '[["active", -10, "08:00"], ["completed", -4, "23:00"]]'),
    (29, 'Holiday Bundle', 'Gift bundles for the holidays.', 'bundle_deal', -6, 8, 'active', 20000,
      '[["active", -6, "08:00"]]'),
    (30, 'Winter Collection', 'Planned launch of the winter collection.', 'seasonal_collection', 10, 40, 'draft', 40000, '[]')
),
placed as (
  select p.*, md5('demo-campaign-' || p.key)::uuid as id, (private.now() at time zone 'UTC')::date as today
  from plan p
),
inserted as (
  insert into public.campaigns (id, name, description, status, start_date, end_date, budget, target_audience, campaign_type,
    attribution_layer, attribution_weight, priority_score, created_by, created_at, updated_at)
  select p.id, p.name, p.description, p.status::public.campaign_status, p.today + p.start_offset, p.today + p.end_offset,
         p.budget, 'All members', p.campaign_type, t.attribution_layer, t.default_weight, t.default_priority,
         '00000000-0000-4000-8000-000000000001',
         ((p.today + least(p.start_offset - 7, -1)) + time '09:00') at time zone 'UTC', private.now()
  from placed p
  join public.campaign_type_config t on t.type_code = p.campaign_type
  on conflict (id) do nothing
  returning id
)
insert into public.campaign_status_history (campaign_id, from_status, to_status, changed_at, changed_by, changed_by_role)
select p.id,
       lag(m.status) over (partition by p.id order by m.n)::public.campaign_status,
       m.status::public.campaign_status,
       m.changed_at,
       '00000000-0000-4000-8000-000000000001',
       'authenticated'
from placed p
join inserted i on i.id = p.id
cross join lateral (
  select 0 as n, 'draft' as status, ((p.today + least(p.start_offset - 7, -1)) + time '09:00') at time zone 'UTC' as changed_at
  union all
  select e.n, e.move ->> 0,
         coalesce(((p.today + (e.move ->> 1)::integer) + (e.move ->> 2)::time) at time zone 'UTC', private.now())
  from jsonb_array_elements(p.moves::jsonb) with ordinality as e(move, n)
) m;

select set_config('session_replication_role', 'origin', false);

-- Forty customers and 3 to 12 orders a day over the last 120 days, most fulfilled, a few cancelled.
insert into public.customers (id, email, name, created_at)
select md5('demo-customer-' || n)::uuid, format('shopper%s@example.com', n), format('Demo Shopper %s', n),
       private.now() - interval '150 days'
from generate_series(1, 40) as n
on conflict do nothing;

insert into public.orders (id, customer_id, status, total_amount, item_count, ordered_at, promised_at, shipped_at, delivered_at,
  completed_at, cancelled_at)
select o.id, o.customer_id, o.status, o.total_amount, o.item_count, o.ordered_at, o.ordered_at + interval '3 days',
       case when o.status in ('shipped', 'delivered', 'completed') then o.ordered_at + interval '1 day' end,
       case when o.status in ('delivered', 'completed') then o.ordered_at + interval '2 days' end,
       case when o.status = 'completed' then o.ordered_at + interval '4 days' end,
       case when o.status = 'cancelled' then o.ordered_at + interval '2 hours' end
from (
  select md5(format('demo-order-%s-%s', d, k))::uuid as id,
         md5('demo-customer-' || (1 + abs(hashtext(format('c%s-%s', d, k))) % 40))::uuid as customer_id,
         case when abs(hashtext(format('s%s-%s', d, k))) % 20 = 0 then 'cancelled'
              when d > -3 then 'paid'
              when d > -6 then 'shipped'
              when abs(hashtext(format('s%s-%s', d, k))) % 5 = 0 then 'delivered'
              else 'completed' end as status,
         round((300 + abs(hashtext(format('a%s-%s', d, k))) % 470000 / 100.0)::numeric, 2) as total_amount,
         1 + abs(hashtext(format('i%s-%s', d, k))) % 4 as item_count,
         (((private.now() at time zone 'UTC')::date + d) + make_interval(mins => abs(hashtext(format('t%s-%s', d, k))) % 1440))
           at time zone 'UTC' as ordered_at
  from generate_series(-119, 0) as d
  cross join lateral generate_series(1, 3 + abs(hashtext('n' || d)) % 10) as k
) o
where o.ordered_at <= private.now()
on conflict (id) do nothing;
