-- Thirty demo products; most have stock, several in two or three lots received on different days, so
-- FIFO is visible. The lots go through public.stock_in as the service role, so they have their stock-in
-- history and ledger rows like any other stock. Re-running changes nothing: a product that already has a
-- lot is left alone.
insert into public.products (sku, name, is_active)
values
  ('TEA-OOLONG-150', 'Alishan Oolong Tea 150 g', true),
  ('TEA-BLACK-100', 'Sun Moon Lake Black Tea 100 g', true),
  ('TEA-GREEN-100', 'Wenshan Baozhong Green Tea 100 g', true),
  ('TEA-GIFT-SET', 'Tea Tasting Gift Set', true),
  ('CUP-CERAMIC-WHT', 'Ceramic Tea Cup, white', true),
  ('CUP-CERAMIC-CEL', 'Ceramic Tea Cup, celadon', true),
  ('POT-CLAY-300', 'Yixing Clay Teapot 300 ml', true),
  ('POT-GLASS-500', 'Glass Teapot with Infuser 500 ml', true),
  ('KETTLE-ELEC-1L', 'Electric Gooseneck Kettle 1 L', true),
  ('TRAY-BAMBOO-L', 'Bamboo Tea Tray, large', true),
  ('SNACK-PINEAPPLE', 'Pineapple Cakes, box of 12', true),
  ('SNACK-NOUGAT', 'Peanut Nougat 250 g', true),
  ('SNACK-MOCHI', 'Sesame Mochi, box of 8', true),
  ('SNACK-DRIED-MANGO', 'Dried Mango 200 g', true),
  ('COFFEE-BEAN-250', 'Single-Origin Coffee Beans 250 g', true),
  ('COFFEE-DRIP-10', 'Drip Coffee Bags, pack of 10', true),
  ('MUG-ENAMEL', 'Enamel Camping Mug', true),
  ('BOTTLE-STEEL-500', 'Insulated Steel Bottle 500 ml', true),
  ('BAG-TOTE-CANVAS', 'Canvas Tote Bag', true),
  ('BAG-GIFT-PAPER', 'Paper Gift Bag', true),
  ('SOAP-TEA-SEED', 'Tea Seed Soap', true),
  ('CANDLE-OSMANTHUS', 'Osmanthus Scented Candle', true),
  ('INCENSE-SANDAL', 'Sandalwood Incense, 40 sticks', true),
  ('NOTEBOOK-RICE', 'Rice Paper Notebook', true),
  ('POSTCARD-SET', 'Postcard Set, 10 views', true),
  ('FAN-PAPER', 'Folding Paper Fan', true),
  ('TOWEL-COTTON', 'Cotton Hand Towel', true),
  ('CHOPSTICKS-SET', 'Wooden Chopsticks, 5 pairs', true),
  ('SAUCE-SOY-500', 'Black Bean Soy Sauce 500 ml', false),
  ('NOODLE-HAKKA', 'Hakka Flat Noodles 600 g', true)
on conflict (sku) do nothing;

select set_config('request.jwt.claims', '{"role":"service_role"}', false);

-- An inactive product takes no stock-in, and the inactive demo product was discontinued after its goods
-- came in: a seeded inactive product that has no lot yet is active for its stock-in and deactivated again
-- right after, so a rerun (which finds its lot) leaves it as it is.
create temporary table seed_inactive_products as
select p.id from public.products p
where not p.is_active and p.sku = 'SAUCE-SOY-500'
  and not exists (select 1 from public.inventory_records r where r.product_id = p.id);

update public.products set is_active = true where id in (select id from seed_inactive_products);

-- (sku, quantity, source, note, days ago received, lot number, expiry in days from today): several lots per
-- product for the first ten; the foods carry their lot numbers and expiry dates, one lot of mochi just past it.
select public.stock_in(p.id, lot.quantity, lot.source, lot.note, private.now() - make_interval(days => lot.days_ago),
                       lot_number => lot.lot_number, expires_on => private.store_today() + lot.expires_in)
from (
  values
    ('TEA-OOLONG-150', 40, 'purchase_order', 'PO-2026-0101', 60, 'OL-2609', 300),
    ('TEA-OOLONG-150', 25, 'purchase_order', 'PO-2026-0144', 20, 'OL-2610', 330),
    ('TEA-OOLONG-150', 30, 'supplier_direct', null, 3, 'OL-2611', 360),
    ('TEA-BLACK-100', 50, 'purchase_order', 'PO-2026-0102', 45, 'BK-0931', 240),
    ('TEA-BLACK-100', 20, 'return_goods', 'Customer returns, resaleable', 10, null, null),
    ('TEA-GREEN-100', 35, 'purchase_order', 'PO-2026-0103', 30, 'GR-1027', 150),
    ('TEA-GREEN-100', 35, 'purchase_order', 'PO-2026-0150', 5, 'GR-1121', 180),
    ('TEA-GIFT-SET', 12, 'production_complete', 'Assembled in-house', 14, null, null),
    ('TEA-GIFT-SET', 8, 'production_complete', 'Assembled in-house', 2, null, null),
    ('CUP-CERAMIC-WHT', 120, 'purchase_order', 'PO-2026-0110', 90, null, null),
    ('CUP-CERAMIC-WHT', 60, 'transfer_in', 'From the Taichung warehouse', 15, null, null),
    ('CUP-CERAMIC-CEL', 80, 'purchase_order', 'PO-2026-0111', 90, null, null),
    ('POT-CLAY-300', 6, 'supplier_direct', null, 40, null, null),
    ('POT-CLAY-300', 4, 'supplier_direct', null, 7, null, null),
    ('POT-GLASS-500', 24, 'purchase_order', 'PO-2026-0120', 25, null, null),
    ('KETTLE-ELEC-1L', 15, 'purchase_order', 'PO-2026-0121', 50, null, null),
    ('KETTLE-ELEC-1L', 10, 'purchase_order', 'PO-2026-0160', 4, null, null),
    ('TRAY-BAMBOO-L', 9, 'manual_stock_in', null, 35, null, null),
    ('SNACK-PINEAPPLE', 200, 'purchase_order', 'PO-2026-0130', 21, 'PC-1105', 12),
    ('SNACK-PINEAPPLE', 150, 'purchase_order', 'PO-2026-0161', 6, 'PC-1120', 25),
    ('SNACK-PINEAPPLE', 100, 'purchase_order', 'PO-2026-0170', 1, 'PC-1125', 40),
    ('SNACK-NOUGAT', 90, 'purchase_order', 'PO-2026-0131', 12, 'NG-1114', 20),
    ('SNACK-MOCHI', 60, 'purchase_order', 'PO-2026-0132', 8, 'MC-1118', -1),
    ('SNACK-DRIED-MANGO', 75, 'supplier_direct', null, 16, 'DM-1110', 90),
    ('COFFEE-BEAN-250', 30, 'purchase_order', 'PO-2026-0140', 28, 'CB-1029', 28),
    ('COFFEE-BEAN-250', 30, 'purchase_order', 'PO-2026-0165', 9, 'CB-1117', 75),
    ('COFFEE-DRIP-10', 140, 'purchase_order', 'PO-2026-0141', 19, 'CD-1107', 120),
    ('MUG-ENAMEL', 45, 'transfer_in', 'From the Taichung warehouse', 33, null, null),
    ('BOTTLE-STEEL-500', 55, 'purchase_order', 'PO-2026-0142', 27, null, null),
    ('BAG-TOTE-CANVAS', 70, 'manual_stock_in', null, 60, null, null),
    ('BAG-GIFT-PAPER', 500, 'purchase_order', 'PO-2026-0143', 70, null, null),
    ('SOAP-TEA-SEED', 65, 'supplier_direct', null, 22, null, null),
    ('CANDLE-OSMANTHUS', 3, 'purchase_order', 'PO-2026-0145', 50, null, null),
    ('INCENSE-SANDAL', 40, 'purchase_order', 'PO-2026-0146', 44, null, null),
    ('NOTEBOOK-RICE', 25, 'production_complete', null, 18, null, null),
    ('POSTCARD-SET', 110, 'production_complete', null, 80, null, null),
    ('FAN-PAPER', 2, 'other', 'Found in the back office during the move', 5, null, null),
    ('TOWEL-COTTON', 85, 'purchase_order', 'PO-2026-0147', 13, null, null),
    ('SAUCE-SOY-500', 18, 'purchase_order', 'PO-2026-0148', 100, 'SY-0818', 200)
) as lot (sku, quantity, source, note, days_ago, lot_number, expires_in)
join public.products p on p.sku = lot.sku
where not exists (select 1 from public.inventory_records r where r.product_id = p.id)
order by lot.days_ago desc;

update public.products set is_active = false where id in (select id from seed_inactive_products);

drop table seed_inactive_products;

select set_config('request.jwt.claims', '', false);
