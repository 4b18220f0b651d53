-- The business-health report's insights (docs/business-health.md): the rules, where their actions are
-- carried out, and the five most important that apply, in the report's language. 60_report.sql calls them.

-- The insight rules (docs/business-health.md): each rule's condition, its words and its actions over the
-- report's figures, the five most important that apply. `figures` holds the period's order, customer,
-- ticket and product figures (the columns of the figure functions), the report's own scores and the
-- `language` of its words: the seeds' Traditional Chinese, or English when asked (`en`). Each rule holds
-- its words in both, side by side, so a rule is written once.
create or replace function private.health_insight_rules(figures jsonb)
returns table (
  n integer, applies boolean, title text, title_en text, description text, description_en text, type text,
  impact text, observations bigint, category text, actions text[], actions_en text[]
)
language sql stable set search_path = '' as $$
  select v.*
  from jsonb_to_record(figures) as f(
    days integer, include_system boolean, language text, custom boolean,
    orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric,
    previous_revenue numeric, customers bigint, repeat_customers bigint, tickets bigint, resolved bigint,
    rated bigint, average_rating numeric, response_score numeric, average_response_hours numeric,
    products bigint, in_stock_share numeric, sold_share numeric,
    revenue_score numeric, customer_quality numeric, overall numeric,
    system_requests bigint, system_failures bigint, system_p95_ms numeric)
  cross join lateral (
    values
    (1, f.previous_revenue > 0 and f.revenue < 0.9 * f.previous_revenue,
     '營收下滑', 'Revenue is falling',
     format('本期營收較前一期下降 %s%%，營收分數 %s/10。', round((1 - f.revenue / nullif(f.previous_revenue, 0)) * 100, 1),
            round(f.revenue_score, 1)),
     format('Revenue is down %s%% on the previous period; revenue score %s/10.',
            round((1 - f.revenue / nullif(f.previous_revenue, 0)) * 100, 1), round(f.revenue_score, 1)),
     'warning', case when f.revenue < 0.7 * f.previous_revenue then 'high' else 'medium' end, f.orders, 'revenue',
     array['比較本期與前期的流量與轉換率', '對近 90 天未回購的顧客推出限時優惠', '確認熱銷商品沒有缺貨'],
     array['Compare traffic and conversion with the previous period',
           'Offer a limited-time deal to customers who have not bought again in 90 days',
           'Make sure best-selling products are in stock']),
    (2, f.previous_revenue > 0 and f.revenue >= 1.1 * f.previous_revenue,
     '營收成長', 'Revenue is growing',
     format('本期營收較前一期成長 %s%%，已達成長 10%% 的目標。', round((f.revenue / nullif(f.previous_revenue, 0) - 1) * 100, 1)),
     format('Revenue is up %s%% on the previous period, past the 10%% growth target.',
            round((f.revenue / nullif(f.previous_revenue, 0) - 1) * 100, 1)),
     'opportunity', 'medium', f.orders, 'revenue',
     array['加碼投放帶來成長的通路', '為熱銷商品提前備貨'],
     array['Put more into the channels behind the growth', 'Stock up early on best-selling products']),
    (3, f.orders > 0 and f.completed < 0.8 * f.orders,
     '訂單完成率偏低', 'Few orders completed',
     format('本期訂單完成率 %s%%，低於 80%% 的目標。', round(f.completed::numeric / nullif(f.orders, 0) * 100, 1)),
     format('%s%% of this period''s orders are completed, below the 80%% target.',
            round(f.completed::numeric / nullif(f.orders, 0) * 100, 1)),
     'warning', 'high', f.orders, 'fulfillment',
     array['檢查卡在付款與出貨之間的訂單', '縮短從付款到出貨的處理時間'],
     array['Check orders stuck between payment and shipping', 'Shorten the time from payment to shipping']),
    (4, f.due > 0 and f.on_time < 0.9 * f.due,
     '準時出貨率不足', 'Deliveries are late',
     format('已到承諾日期的訂單中，準時送達率 %s%%（目標 90%%）。', round(f.on_time::numeric / nullif(f.due, 0) * 100, 1)),
     format('Of the orders past their promised date, %s%% arrived on time (target 90%%).',
            round(f.on_time::numeric / nullif(f.due, 0) * 100, 1)),
     'warning', case when f.on_time < 0.75 * f.due then 'high' else 'medium' end, f.due, 'fulfillment',
     array['檢視物流商的延遲紀錄', '依實際出貨能力調整承諾到貨日'],
     array['Review the carriers'' delay records', 'Promise delivery dates the shipping capacity can keep']),
    (5, f.orders > 0 and f.cancelled > 0.1 * f.orders,
     '取消率偏高', 'Many orders cancelled',
     format('本期 %s%% 的訂單被取消（警戒線 10%%）。', round(f.cancelled::numeric / nullif(f.orders, 0) * 100, 1)),
     format('%s%% of this period''s orders were cancelled (alert level 10%%).',
            round(f.cancelled::numeric / nullif(f.orders, 0) * 100, 1)),
     'warning', 'medium', f.orders, 'fulfillment',
     array['分析取消原因（缺貨、付款失敗、到貨太慢）', '在結帳頁清楚標示到貨時間'],
     array['Find out why orders are cancelled (out of stock, failed payment, slow delivery)',
           'Show the delivery time clearly at checkout']),
    (6, f.tickets > 0 and f.resolved < 0.8 * f.tickets,
     '客服工單解決率偏低', 'Few support tickets resolved',
     format('本期工單解決率 %s%%，低於 80%% 的目標。', round(f.resolved::numeric / nullif(f.tickets, 0) * 100, 1)),
     format('%s%% of this period''s tickets are resolved, below the 80%% target.',
            round(f.resolved::numeric / nullif(f.tickets, 0) * 100, 1)),
     'warning', 'high', f.tickets, 'support',
     array['每日清查超過 48 小時未結的工單', '為常見問題建立標準處理流程'],
     array['Go through tickets open for more than 48 hours every day', 'Write a standard answer for common questions']),
    (7, f.tickets > 0 and f.response_score < 0.7,
     '客服回覆速度偏慢', 'Support answers slowly',
     format('平均首次回覆時間 %s 小時，回覆分數 %s%%。', round(f.average_response_hours, 1), round(f.response_score * 100, 1)),
     format('The first answer takes %s hours on average; response score %s%%.', round(f.average_response_hours, 1),
            round(f.response_score * 100, 1)),
     'warning', 'medium', f.tickets, 'support',
     array['設定 1 小時內首次回覆的服務目標', '在尖峰時段增加客服人力或自動回覆'],
     array['Aim to answer every ticket within an hour', 'Add support staff or automatic replies at peak times']),
    (8, f.rated > 0 and f.average_rating < 3.5,
     '顧客滿意度偏低', 'Customers are not satisfied',
     format('已評分工單的平均滿意度 %s/5（%s%% 的工單有評分）。', round(f.average_rating, 2),
            round(f.rated::numeric / nullif(f.tickets, 0) * 100, 1)),
     format('Rated tickets average %s/5 (%s%% of tickets are rated).', round(f.average_rating, 2),
            round(f.rated::numeric / nullif(f.tickets, 0) * 100, 1)),
     'warning', 'high', f.rated, 'satisfaction',
     array['回訪給出 1–2 分的顧客', '檢討低分工單的共同原因'],
     array['Call back customers who rated 1–2', 'Look for what low-rated tickets have in common']),
    (9, f.customers > 0 and f.repeat_customers < 0.3 * f.customers,
     '回購率有成長空間', 'Room for more repeat customers',
     format('本期活躍顧客中僅 %s%% 在過去一年內回購，顧客品質分數 %s。',
            round(f.repeat_customers::numeric / nullif(f.customers, 0) * 100, 1), round(f.customer_quality, 1)),
     format('Only %s%% of this period''s active customers bought again within the year; customer quality %s.',
            round(f.repeat_customers::numeric / nullif(f.customers, 0) * 100, 1), round(f.customer_quality, 1)),
     'opportunity', 'medium', f.customers, 'customers',
     array['對首購顧客寄送回購優惠', '推出會員或集點方案'],
     array['Send first-time buyers an offer to come back', 'Start a membership or points programme']),
    (10, f.products > 0 and f.in_stock_share < 0.9,
     '缺貨商品偏多', 'Many products out of stock',
     format('%s%% 的上架商品目前缺貨（目標 10%% 以下）。', round((1 - f.in_stock_share) * 100, 1)),
     format('%s%% of the listed products are out of stock (target: under 10%%).', round((1 - f.in_stock_share) * 100, 1)),
     'warning', case when f.in_stock_share < 0.75 then 'high' else 'medium' end, f.products, 'products',
     array['優先補貨近期有銷售的缺貨商品', '為熱銷商品設定安全庫存'],
     array['Restock first the out-of-stock products that sold recently', 'Set a safety stock for best sellers']),
    (11, f.products > 0 and f.sold_share < 0.5,
     '滯銷商品偏多', 'Many products not selling',
     format('本期僅 %s%% 的上架商品有出貨。', round(f.sold_share * 100, 1)),
     format('Only %s%% of the listed products shipped this period.', round(f.sold_share * 100, 1)),
     'opportunity', 'low', f.products, 'products',
     array['為滯銷商品安排組合或折扣', '下架長期沒有銷售的商品'],
     array['Bundle or discount slow sellers', 'Delist products that have not sold for a long time']),
    (12, f.include_system and f.system_requests > 0 and f.system_failures > 0.01 * f.system_requests,
     '系統錯誤率偏高', 'Many requests failing',
     format('最近 15 分鐘有 %s%% 的請求失敗，p95 延遲 %s 毫秒。',
            round(f.system_failures::numeric / nullif(f.system_requests, 0) * 100, 1), round(f.system_p95_ms)),
     format('%s%% of requests failed in the last 15 minutes; p95 latency %s ms.',
            round(f.system_failures::numeric / nullif(f.system_requests, 0) * 100, 1), round(f.system_p95_ms)),
     'warning', 'high', f.system_requests, 'system',
     array['檢查資料庫連線與錯誤日誌', '確認最近的部署沒有引入錯誤'],
     array['Check the database connections and the error log', 'Make sure the last deployment did not bring errors']),
    (13, f.orders = 0,
     '本期沒有訂單', 'No orders this period',
     -- A custom period (version 2.0) may lie in the past: its days are not "the last" ones.
     format(case when f.custom then '這段期間的 %s 天沒有任何訂單，各項分數以 0 計。'
                 else '最近 %s 天沒有任何訂單，各項分數以 0 計。' end, f.days),
     format(case when f.custom then 'No order in the period''s %s days; the scores count as 0.'
                 else 'No order in the last %s days; the scores count as 0.' end, f.days),
     'info', 'low', null::bigint, 'revenue',
     array['確認商店與結帳流程正常運作', '安排一檔促銷活動帶動首批訂單'],
     array['Check that the store and checkout work', 'Run a promotion to bring in the first orders']),
    (14, f.overall >= 75,
     '整體表現良好', 'Doing well overall',
     format('綜合健康分數 %s，評等「%s」。', round(f.overall, 1), private.health_rating(f.overall)),
     format('Overall health score %s, rated "%s".', round(f.overall, 1), private.health_word(private.health_rating(f.overall), 'en')),
     'info', 'low', f.orders, 'overall',
     array['維持目前的營運節奏', '每週追蹤趨勢，及早發現下滑'],
     array['Keep up the current pace', 'Follow the trend every week to catch a decline early'])
  ) v
$$;

revoke execute on function private.health_insight_rules(jsonb) from public, anon, authenticated;

grant execute on function private.health_insight_rules(jsonb) to service_role;

-- Where an insight's actions are carried out in the back office, by rule (`n` of health_insight_rules) and
-- action, in the order of the rule's actions: null where the action has no screen (traffic, carriers,
-- tickets, the system). The console turns each into a link.
-- `campaign` is the insight's own campaign (version 2.0's `campaign_id`).
create type public.insight_action_target as enum (
  'orders_awaiting_shipment', 'orders_shipped', 'orders_cancelled', 'products_out_of_stock', 'products_low_stock',
  'products', 'new_campaign', 'campaign'
);

create or replace function private.health_action_targets(rule integer)
returns public.insight_action_target[]
language sql immutable set search_path = '' as $$
  select (case rule
    when 1 then array[null, 'new_campaign', 'products_out_of_stock']
    when 2 then array[null, 'products_low_stock']
    when 3 then array['orders_awaiting_shipment', 'orders_awaiting_shipment']
    when 4 then array['orders_shipped', null]
    when 5 then array['orders_cancelled', null]
    when 9 then array['new_campaign', null]
    when 10 then array['products_out_of_stock', 'products_low_stock']
    when 11 then array['new_campaign', 'products']
    when 13 then array[null, 'new_campaign']
    when 15 then array['campaign', 'new_campaign']
    when 16 then array['campaign', 'campaign']
    when 17 then array['campaign', 'campaign']
    else array[]::text[]
  end)::public.insight_action_target[]
$$;

revoke execute on function private.health_action_targets(integer) from public, anon, authenticated;

grant execute on function private.health_action_targets(integer) to service_role;

-- The five most important insights that apply, in the report's language, most important first. Version 2.0
-- adds each insight's `campaign_id`: the campaign it is about, for callers who may read campaigns.
create or replace function private.health_insights(figures jsonb)
returns jsonb
language sql stable set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'title', case when english then title_en else title end,
           'description', case when english then description_en else description end,
           'type', type, 'impact', impact, 'confidence', confidence, 'category', category,
           'actions', to_jsonb(case when english then actions_en else actions end),
           'action_targets', to_jsonb(private.health_action_targets(n)))
           || case when (figures ->> 'version')::integer >= 2 then jsonb_build_object('campaign_id',
                figures -> 'marketing' -> (case n when 15 then 'best' when 16 then 'worst' when 17 then 'ahead' end) -> 'id')
              else '{}'::jsonb end
         order by rank desc, confidence desc, n), '[]'::jsonb)
  from (
    select r.*, coalesce(private.health_confidence(r.observations), 1.00) as confidence,
           case r.impact when 'high' then 3 when 'medium' then 2 else 1 end as rank,
           (figures ->> 'language' = 'en') is true as english
    from (select * from private.health_insight_rules(figures)
          union all
          -- Version 2.0's: not even read for a 1.0 report.
          select * from private.health_marketing_insight_rules(figures) where (figures ->> 'version')::integer >= 2) r
    where r.applies
    order by rank desc, confidence desc, n
    limit 5
  ) ranked
$$;

revoke execute on function private.health_insights(jsonb) from public, anon, authenticated;

grant execute on function private.health_insights(jsonb) to service_role;
