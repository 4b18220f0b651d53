// Supabase's database advisors (the security and performance lints the dashboard shows), run by the
// official CLI against any database URL.
import { supabaseCli } from './stack.mjs';

// `unused_index` measures traffic, not schema: on a fresh database every index is unused, and on a
// busy one the answer depends on the workload. Everything else is a finding.
const TRAFFIC_DEPENDENT = new Set(['unused_index']);

// The store's clock (`private.now()`, `private.clock_timestamp()` in 00_platform_helpers.sql) and its day
// (`private.store_time_zone()`, `store_day`, `store_day_start`, `store_today`) pin no search_path on
// purpose: a function that sets one is never inlined, and every order would pay a call for each of its time
// defaults and its stored day. So does the order version (`private.order_version`, 30_orders/40_order_change_log.sql), which
// the orders' change-log trigger reads on every order write, an order's figures at a moment
// (`private.order_figures_at`, 30_orders/10_customers_orders.sql), which the reports read for each order they
// count, and the product field rules
// (`private.is_product_sku` and the others, 20_inventory/10_products_and_lots.sql), which every product update
// checks, and the orders search's match (`private.customer_matches`), inlined so the planner sees its like.
// Every name in them is schema-qualified (the order version names none), so the search_path cannot change
// what they call, which is the risk this lint is about.
export const INLINED = new Set([
  'now',
  'clock_timestamp',
  'store_time_zone',
  'store_day',
  'store_day_start',
  'store_today',
  'order_version',
  'order_figures_at',
  'is_product_sku',
  'is_product_name',
  'is_reorder_level',
  'customer_matches',
]);
const accepted = (finding) =>
  finding.name === 'function_search_path_mutable' && finding.metadata?.schema === 'private' &&
  INLINED.has(finding.metadata?.name);

export async function advisorFindings(url) {
  const output = await supabaseCli(['db', 'advisors', `--remote=${url}`, '--type', 'all', '--level', 'info', '-o', 'json'], {
    stderr: false,
  });
  const findings = JSON.parse(output.slice(output.indexOf('[')));
  return findings.filter((finding) => !TRAFFIC_DEPENDENT.has(finding.name) && !accepted(finding));
}

export function describeFinding(finding) {
  return `${finding.level} ${finding.name}: ${finding.detail}\n  ${finding.remediation}`;
}
