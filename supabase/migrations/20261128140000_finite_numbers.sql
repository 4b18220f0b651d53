-- Every stored number finite: NaN passes `>= 0` (PostgreSQL sorts it above every number), so each numeric
-- column also asks `< 'Infinity'`, which NaN and Infinity fail.
alter table public.orders drop constraint orders_total_amount_not_negative,
  add constraint orders_total_amount_not_negative check (total_amount >= 0 and total_amount < 'Infinity');

alter table public.order_lines drop constraint order_lines_unit_price_not_negative,
  add constraint order_lines_unit_price_not_negative check (unit_price >= 0 and unit_price < 'Infinity');

alter table public.order_line_lots
  add constraint order_line_lots_unit_cost_not_negative check (unit_cost >= 0 and unit_cost < 'Infinity');

alter table private.shipped_order_costs
  add constraint shipped_order_costs_total_amount_not_negative check (total_amount >= 0 and total_amount < 'Infinity'),
  add constraint shipped_order_costs_goods_cost_not_negative check (goods_cost >= 0 and goods_cost < 'Infinity');

alter table public.inventory_records drop constraint inventory_records_unit_cost_not_negative,
  add constraint inventory_records_unit_cost_not_negative check (unit_cost >= 0 and unit_cost < 'Infinity');

alter table public.campaigns drop constraint campaigns_budget_not_negative,
  add constraint campaigns_budget_not_negative check (budget >= 0 and budget < 'Infinity');

alter table public.campaign_spend drop constraint campaign_spend_amount_not_negative,
  add constraint campaign_spend_amount_not_negative check (amount >= 0 and amount < 'Infinity');

alter table private.campaign_attribution_days
  add constraint campaign_attribution_days_raw_weight_finite check (raw_weight >= 0 and raw_weight < 'Infinity'),
  add constraint campaign_attribution_days_normalized_weight_finite check (normalized_weight < 'Infinity');

alter table private.order_daily_revenue
  add constraint order_daily_revenue_revenue_finite check (revenue > '-Infinity' and revenue < 'Infinity');

alter table private.order_changes
  add constraint order_changes_total_amount_finite check (total_amount < 'Infinity');

alter table private.order_day_figures
  add constraint order_day_figures_revenue_finite check (revenue < 'Infinity');

alter table private.customer_order_figures
  add constraint customer_order_figures_revenue_finite check (revenue < 'Infinity');

alter table private.health_figure_changes
  add constraint health_figure_changes_revenue_finite check (revenue > '-Infinity' and revenue < 'Infinity'),
  add constraint health_figure_changes_previous_revenue_finite
    check (previous_revenue > '-Infinity' and previous_revenue < 'Infinity');

alter table private.health_figure_changes_by_10_minutes
  add constraint health_figure_changes_by_10_minutes_revenue_finite
    check (revenue > '-Infinity' and revenue < 'Infinity'),
  add constraint health_figure_changes_by_10_minutes_previous_revenue_finite
    check (previous_revenue > '-Infinity' and previous_revenue < 'Infinity');

alter table private.customer_counted_orders
  add constraint customer_counted_orders_spend_finite
    check (not running_spend operator(pg_catalog.&&) '{NaN,Infinity,-Infinity}'::numeric[]);
