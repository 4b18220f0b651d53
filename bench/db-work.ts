/**
 * Each scenario's SQL as its function runs it, for the database ceiling. Kept beside the HTTP scenario
 * of the same name in bench/scenarios.mjs; a change to a function's query belongs here too.
 */
import type { Caller } from '../supabase/functions/_shared/caller.ts';
import type { Tx } from '../supabase/functions/_shared/db.ts';
// @ts-types="./scenarios.d.mts"
import {
  adjustment,
  deliveryLines,
  ORDER_LIST_PRESETS,
  orderListQuery,
  orderSearchTerm,
  searchTerm,
  yearOfDays,
} from './scenarios.mjs';
import { cataloguePage } from '../supabase/functions/campaign-types/handlers.ts';
import { campaignMetrics, campaignPage } from '../supabase/functions/campaigns/handlers.ts';
import { ordersPage } from '../supabase/functions/orders/handlers.ts';

/** What the dataset step found, e.g. product ids to write to. */
export interface BenchContext {
  productIds: string[];
  campaignIds: string[];
  today: string;
  orderWindows: Record<string, { ordered_from: string; ordered_before: string }>;
}

interface Work {
  caller: Caller;
  run(tx: Tx, n: number, context: BenchContext): Promise<unknown>;
}

const ADMIN_ID = '00000000-0000-4000-8000-000000000001';
const ADMIN: Caller = {
  kind: 'user',
  role: 'authenticated',
  userId: ADMIN_ID,
  claims: { role: 'authenticated', sub: ADMIN_ID },
};
const SERVICE: Caller = { kind: 'service', role: 'service_role', userId: null, claims: { role: 'service_role' } };

const health = (period: string, version = 1): Work => ({
  caller: SERVICE,
  run: (tx) => tx`select health.business_health(${period}, true, true, true, 'zh-TW', ${version}) as report`,
});

export const databaseWork: Record<string, Work> = {
  'campaign-types list': {
    caller: ADMIN,
    run: (tx) => cataloguePage(tx, {}),
  },
  'stock-in': {
    caller: ADMIN,
    run: (tx, n, { productIds }) =>
      tx`select public.stock_in(product_id => ${productIds[n % productIds.length]}::uuid, quantity => ${1}::bigint,
                                source => ${'manual_stock_in'}, note => ${null}, received_at => ${null}::timestamptz,
                                idempotency_key => ${null}) as response`,
  },
  'stock-in batch (50 lines)': {
    caller: ADMIN,
    run: (tx, n, { productIds, today }) =>
      tx`select public.stock_in_batch(items => ${tx.json(deliveryLines(n, productIds, today))},
                                      source => ${'purchase_order'}, note => ${null}, received_at => ${null}::timestamptz,
                                      idempotency_key => ${null}) as response`,
  },
  'orders search (1M orders)': {
    caller: ADMIN,
    run: (tx, n) => ordersPage(tx, { search: orderSearchTerm(n) }, new Date().toISOString()),
  },
  'stock-adjust (product mode)': {
    caller: ADMIN,
    run: (tx, n, { productIds }) => {
      const { product_id, adjust_quantity, reason } = adjustment(n, productIds);
      return tx`select public.stock_adjust(product_id => ${product_id}::uuid, inventory_id => ${null}::uuid,
                                           adjust_quantity => ${adjust_quantity}::bigint, reason => ${reason},
                                           reason_note => ${null}, source => ${'manual_adjustment'},
                                           idempotency_key => ${null}) as response`;
    },
  },
  'attribution (1,000 active campaigns)': {
    caller: ADMIN,
    run: (tx, _, { today }) =>
      tx`select private.campaign_attributions_json(${today}::date, ${'1000'}::numeric)::text as result`,
  },
  'attribution (1,000 active campaigns, gzip)': {
    caller: ADMIN,
    run: (tx, _, { today }) =>
      tx`select private.campaign_attributions_json(${today}::date, ${'1000'}::numeric)::text as result`,
  },
  'campaign metrics': {
    caller: ADMIN,
    run: (tx, n, { campaignIds }) => campaignMetrics(tx, campaignIds[n % campaignIds.length]),
  },
  'campaign list search (100,000 campaigns)': {
    caller: ADMIN,
    run: (tx, n) => campaignPage(tx, { search: decodeURIComponent(searchTerm(n)), limit: 20 }),
  },
  ...Object.fromEntries(ORDER_LIST_PRESETS.map(([name, preset]): [string, Work] => [name, {
    caller: ADMIN,
    run: (tx, _, { orderWindows }) =>
      ordersPage(
        tx,
        Object.fromEntries(new URLSearchParams(orderListQuery(preset, orderWindows))),
        new Date().toISOString(),
      ),
  }])),
  'business health 7d': health('7d'),
  'business health 30d': health('30d'),
  'business health 90d': health('90d'),
  'business health 2.0 7d': health('7d', 2),
  'business health 2.0 30d': health('30d', 2),
  'business health 2.0 90d': health('90d', 2),
  'business health 2.0 custom 365 days': {
    caller: SERVICE,
    run: (tx, _, { today }) => {
      const { from, to } = yearOfDays(today);
      return tx`select health.business_health('custom', true, true, true, 'zh-TW', 2, ${from}::date, ${to}::date) as report`;
    },
  },
};
