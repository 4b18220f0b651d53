-- A realistic catalogue over all four attribution layers, one inactive type among them.
insert into public.campaign_type_config
  (type_code, display_name_zh, display_name_en, attribution_layer, default_weight, default_priority, color_class, icon_name, description, is_active)
values
  ('anniversary_sale', '週年慶', 'Anniversary Sale', 'site-wide', 2.00, 95, 'bg-red-600', 'cake', 'The yearly store-wide anniversary event.', true),
  ('double_eleven', '雙十一購物節', 'Singles Day', 'site-wide', 1.80, 90, 'bg-orange-600', 'shopping-bag', 'Store-wide 11.11 shopping festival.', true),
  ('clearance_event', '全館清倉', 'Store Clearance', 'site-wide', 1.50, 70, 'bg-rose-500', 'tag', 'End-of-season clearance across the store.', true),
  ('vip_exclusive', 'VIP 專屬優惠', 'VIP Exclusive', 'target-oriented', 1.60, 85, 'bg-purple-600', 'crown', 'Offers only for VIP members.', true),
  ('new_member_welcome', '新會員迎賓禮', 'New Member Welcome', 'target-oriented', 1.30, 75, 'bg-indigo-500', 'user-plus', 'First-order offer for new members.', true),
  ('birthday_offer', '生日禮', 'Birthday Offer', 'target-oriented', 1.20, 65, 'bg-pink-500', 'gift', 'A discount in the member''s birthday month.', true),
  ('win_back', '沉睡會員喚回', 'Win-back', 'target-oriented', 1.10, 55, 'bg-violet-400', 'refresh', 'Brings back customers who have not ordered for 90 days.', true),
  ('category_flash_sale', '品類限時搶購', 'Category Flash Sale', 'category-specific', 1.40, 80, 'bg-amber-500', 'zap', 'Time-limited deals on one category.', true),
  ('brand_week', '品牌週', 'Brand Week', 'category-specific', 1.20, 60, 'bg-sky-500', 'star', 'A week of offers from one brand.', true),
  ('seasonal_collection', '季節新品', 'Seasonal Collection', 'category-specific', 1.00, 50, 'bg-emerald-500', 'leaf', 'Launch of a seasonal product line.', true),
  ('bundle_deal', '組合優惠', 'Bundle Deal', 'category-specific', 0.90, 45, 'bg-teal-500', 'package', 'Buy related products together for less.', true),
  ('free_shipping', '免運優惠', 'Free Shipping', 'general', 0.80, 40, 'bg-slate-500', 'truck', 'Free shipping over a threshold.', true),
  ('coupon_code', '折扣碼', 'Coupon Code', 'general', 0.70, 35, 'bg-gray-500', 'ticket', 'Generic discount codes.', true),
  ('newsletter_promo', '電子報優惠', 'Newsletter Promotion', 'general', 0.50, 20, 'bg-zinc-400', 'mail', 'Offers announced in the newsletter.', false)
on conflict (type_code) do nothing;
