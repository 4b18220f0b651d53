-- The insights' rules apart from their ranking, so that neither function is longer than a person reads at once.
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
language sql
stable
set search_path = ''
as $$
  select v.*
  from jsonb_to_record(figures) as f(
    days integer, include_system boolean, language text,
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
     format('最近 %s 天沒有任何訂單，各項分數以 0 計。', f.days),
     format('No order in the last %s days; the scores count as 0.', f.days),
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

-- The five most important insights that apply, in the report's language, most important first.
create or replace function private.health_insights(figures jsonb)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'title', case when english then title_en else title end,
           'description', case when english then description_en else description end,
           'type', type, 'impact', impact, 'confidence', confidence, 'category', category,
           'actions', to_jsonb(case when english then actions_en else actions end))
         order by rank desc, confidence desc, n), '[]'::jsonb)
  from (
    select r.*, coalesce(private.health_confidence(r.observations), 1.00) as confidence,
           case r.impact when 'high' then 3 when 'medium' then 2 else 1 end as rank,
           (figures ->> 'language' = 'en') is true as english
    from private.health_insight_rules(figures) r
    where r.applies
    order by rank desc, confidence desc, n
    limit 5
  ) ranked
$$;


-- A customer's walk through their states apart from the rescoring that compares it with the kept one.
-- Each of `customers`' RFM states from `first_changes` on (paired by position), walked from their counted
-- orders as they are now: one row per moment their counts change, with the state those counts give.
create or replace function private.customer_state_walk(customers uuid[], first_changes timestamptz[])
returns table (customer_id uuid, at timestamptz, state integer)
language plpgsql
stable
set search_path = ''
set work_mem = '256MB'
set plan_cache_mode = 'force_generic_plan'
as $$
#variable_conflict use_column
begin
  if cardinality(customers) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;

  return query
  with
  -- The changed customers' counted orders as they are now, from the first changed order's time on (before
  -- it nothing changed) with the orders still counted then; amounts in cents, exact in float8. First each
  -- customer's newest 256 (through orders_customer_idx): they are all the walk needs when they are all
  -- there is, or when those placed before the first change include 10 counted for their whole year with
  -- 20,000 of spend between them. While any older order is in a window, so are those 10, newer, so
  -- frequency and spend are in their top bands and recency is theirs: every state is the one the older
  -- orders would give. So a change at a customer's newest orders (a checkout) reads a bounded number of
  -- them, however long their history; anyone else's are all read.
  recent as materialized (
    select f.customer_id, f.first_change, r.ordered_at, r.cancelled_at, r.cents,
           r.ordered_at < f.first_change and (r.cancelled_at is null or r.cancelled_at >= r.ordered_at + interval '8760 hours')
             as settled_before
    from unnest(customers, first_changes) f(customer_id, first_change)
    cross join lateral (
      select o.ordered_at, o.cancelled_at, (o.total_amount * 100)::float8 as cents
      from public.orders o
      where o.customer_id = f.customer_id
        and o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
        and least(o.cancelled_at, o.ordered_at + interval '8760 hours') >= f.first_change
      order by o.ordered_at desc
      limit 256
    ) r
  ),
  bounded as (
    select r.customer_id
    from recent r
    group by r.customer_id
    having count(*) < 256
        or (count(*) filter (where r.settled_before) >= 10 and sum(r.cents) filter (where r.settled_before) >= 2000000)
  ),
  counted as materialized (
    select r.customer_id, r.first_change, r.ordered_at, r.cancelled_at, r.cents
    from recent r
    where r.customer_id in (select b.customer_id from bounded b)
    union all
    select o.customer_id, f.first_change, o.ordered_at, o.cancelled_at, (o.total_amount * 100)::float8 as cents
    from unnest(customers, first_changes) f(customer_id, first_change)
    join public.orders o on o.customer_id = f.customer_id
    where f.customer_id not in (select b.customer_id from bounded b)
      and o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
      and least(o.cancelled_at, o.ordered_at + interval '8760 hours') >= f.first_change
  ),
  -- Each changed customer's counts just before their first changed order, where now and then still agree:
  -- their orders placed before it and not yet out of each count. The walk below starts from them.
  base as (
    select c.customer_id,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '72 hours') >= c.first_change) as b3,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '168 hours') >= c.first_change) as b7,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '336 hours') >= c.first_change) as b14,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '720 hours') >= c.first_change) as b30,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '2160 hours') >= c.first_change) as b90,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '8760 hours') >= c.first_change) as b365,
           coalesce(sum(c.cents) filter (where c.ordered_at < c.first_change
                                           and least(c.cancelled_at, c.ordered_at + interval '8760 hours') >= c.first_change), 0)
             as bspend
    from counted c
    group by c.customer_id
  ),
  -- An order counts for T in (ordered_at, cancelled_at] (cancelled_at null: always), so among the last x
  -- days' orders for T in (ordered_at, least(cancelled_at, ordered_at + x)]: at ordered_at (kind 0) it enters
  -- every count (3, 7, 14, 30, 90 and 365 days, and the year's spend), then leaves each at its end (kinds 1
  -- to 6). The steps from the customer's first changed order on, generated customer by customer, so the walk
  -- below sorts each customer's steps on their own.
  counted_steps (customer_id, at, kind, cents) as (
    select c.customer_id, x.at, x.kind, c.cents
    from (select * from counted order by customer_id) c
    cross join generate_series(0, 6) k(kind)
    cross join lateral (select k.kind, case k.kind when 0 then c.ordered_at
                                      else least(c.cancelled_at, c.ordered_at + (array[interval '72 hours', interval '168 hours',
                                           interval '336 hours', interval '720 hours', interval '2160 hours',
                                           interval '8760 hours'])[k.kind]) end as at) x
    where x.at >= c.first_change
  ),
  -- The counts after each moment (all its steps), on top of the customer's base, and the state they give.
  walked as (
    select c.customer_id, c.at,
           case when c.n90 <= 0 then 0
                else 25 * (case when c.n3 > 0 then 5 when c.n7 > 0 then 4
                                when c.n14 > 0 then 3 when c.n30 > 0 then 2 else 1 end)
                     + 5 * (case when c.n365 >= 10 then 4 when c.n365 >= 6 then 3
                                 when c.n365 >= 3 then 2 when c.n365 >= 2 then 1 else 0 end)
                     + (case when c.nspend >= 2000000 then 4 when c.nspend >= 1000000 then 3
                             when c.nspend >= 500000 then 2 when c.nspend >= 100000 then 1 else 0 end) end as state
    from (
      select r.customer_id, r.at,
             b.b3 + r.n3 as n3, b.b7 + r.n7 as n7, b.b14 + r.n14 as n14, b.b30 + r.n30 as n30,
             b.b90 + r.n90 as n90, b.b365 + r.n365 as n365, b.bspend + r.nspend as nspend
      from (
        select s.customer_id, s.at,
               sum(case s.kind when 0 then 1 when 1 then -1 else 0 end) over w as n3,
               sum(case s.kind when 0 then 1 when 2 then -1 else 0 end) over w as n7,
               sum(case s.kind when 0 then 1 when 3 then -1 else 0 end) over w as n14,
               sum(case s.kind when 0 then 1 when 4 then -1 else 0 end) over w as n30,
               sum(case s.kind when 0 then 1 when 5 then -1 else 0 end) over w as n90,
               sum(case s.kind when 0 then 1 when 6 then -1 else 0 end) over w as n365,
               sum(case s.kind when 0 then s.cents when 6 then -s.cents else 0 end) over w as nspend
        from counted_steps s
        window w as (partition by s.customer_id order by s.at)
      ) r
      join base b on b.customer_id = r.customer_id
    ) c
  )
  select w.customer_id, w.at, w.state from walked w;
end
$$;


revoke execute on function private.customer_state_walk(uuid[], timestamptz[]) from public, anon, authenticated;

create or replace function private.apply_customer_score_changes(customers uuid[], first_changes timestamptz[])
returns void
language plpgsql
volatile
set search_path = ''
set work_mem = '256MB'
set plan_cache_mode = 'force_generic_plan'
as $$
declare
  changes private.health_figure_changes[];
begin
  if coalesce(cardinality(customers), 0) = 0 then
    return;
  end if;
  insert into private.customer_scores (customer_id)
  select c.customer_id from unnest(customers) c(customer_id) order by c.customer_id
  on conflict (customer_id) do nothing;
  perform 1 from private.customer_scores s where s.customer_id = any(customers) order by s.customer_id for update;

  if cardinality(customers) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;

  with
  -- The states from the first change on, now.
  walked as materialized (
    select w.customer_id, w.at, w.state from private.customer_state_walk(customers, first_changes) w
  ),
  -- The customers' states as kept until now: how many moments before the first change stay as they are,
  -- and the state then.
  kept as (
    select f.customer_id, f.first_change, s.changed_at, s.states, p.kept,
           coalesce(s.states[p.kept], 0) as state_before
    from unnest(customers, first_changes) f(customer_id, first_change)
    join private.customer_scores s on s.customer_id = f.customer_id
    cross join lateral (select case when cardinality(s.changed_at) = 0 then 0
                                    else width_bucket(f.first_change - interval '1 microsecond', s.changed_at) end as kept) p
  ),
  -- The moments the state changes from the first change on, now (from the walk) and before the statement
  -- (as kept), each with the state it leaves.
  now_moments as materialized (
    select m.customer_id, m.at, m.state, m.previous
    from (
      select w.customer_id, w.at, w.state,
             coalesce(lag(w.state) over (partition by w.customer_id order by w.at), k.state_before) as previous
      from walked w
      join kept k on k.customer_id = w.customer_id
    ) m
    where m.state <> m.previous
  ),
  then_moments as (
    select k.customer_id, e.at, e.state,
           coalesce(lag(e.state) over (partition by k.customer_id order by e.i), k.state_before) as previous
    from kept k
    cross join lateral unnest(k.changed_at[k.kept + 1:], k.states[k.kept + 1:]) with ordinality e(at, state, i)
  ),
  -- The customers' states from now on: what stays before the first change, then the walk's moments (a
  -- customer left with none has none).
  rescored_states as (
    select x.customer_id, coalesce(array_agg(x.at order by x.at) filter (where x.at is not null), '{}') as changed_at,
           coalesce(array_agg(x.state order by x.at) filter (where x.at is not null), '{}') as states
    from (
      select k.customer_id, null::timestamptz as at, null::smallint as state from kept k
      union all
      select k.customer_id, e.at, e.state
      from kept k cross join lateral unnest(k.changed_at[1:k.kept], k.states[1:k.kept]) e(at, state)
      union all
      select m.customer_id, m.at, m.state::smallint from now_moments m
    ) x
    group by x.customer_id
  ),
  -- `= any(customers)` as well, so the generic plan finds the rows by key whatever it guesses of the join.
  rescored as (
    update private.customer_scores s
    set changed_at = n.changed_at, states = n.states
    from rescored_states n
    where s.customer_id = n.customer_id and s.customer_id = any(customers)
    returning 1
  ),
  -- Customers entering (+1) and leaving (−1) each state, by hour: now's moments minus then's.
  state_changes as (
    select date_bin('1 hour', c.at, timestamptz '2000-01-01 00:00+00') as hour, c.state, sum(c.n) as n
    from (
      select m.at, m.state, 1 as n from now_moments m
      union all
      select m.at, m.previous, -1 from now_moments m
      union all
      select m.at, m.state, -1 from then_moments m
      union all
      select m.at, m.previous, 1 from then_moments m
    ) c
    where c.state <> 0
    group by 1, 2
    having sum(c.n) <> 0
  ),
  state_figures as materialized (select * from private.health_rfm_state_figures()),
  rfm_changes as (
    select x.days, c.hour, sum(c.n * x.customers) as customers, sum(c.n * x.score_sum) as score_sum,
           sum(c.n * x.scores_1_mod_3) as scores_1_mod_3, sum(c.n * x.scores_2_mod_3) as scores_2_mod_3,
           sum(c.n * x.scores_of_3) as scores_of_3, sum(c.n * x.repeat_customers) as repeat_customers
    from state_changes c
    join state_figures x on x.state = c.state
    group by 1, 2
  )
  select array_agg(row(c.days, c.hour, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, c.customers, c.score_sum, c.scores_1_mod_3,
                       c.scores_2_mod_3, c.scores_of_3, c.repeat_customers)::private.health_figure_changes)
  into changes
  from rfm_changes c;

  perform private.add_health_figure_changes(changes);
end
$$;

