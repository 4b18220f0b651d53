// The HTTP side of each scenario: what autocannon sends. The database side, for the ceiling, is the
// entry of the same name in bench/db-work.ts.
// `caller` picks the token: `admin` (a signed-in administrator) or `service` (the service key, which the
// health report never rate-limits).
// `sameAs`: a scenario that runs the same code as another with another parameter (a longer window, other
// days); a smoke run, which keeps the harness working and measures nothing, runs only the other.
import { demoCustomerName } from '../scripts/lib/demo-names.mjs';

const health = (period, sameAs) => ({
  name: `business health ${period}`,
  kind: 'read',
  caller: 'service',
  ...(sameAs ? { sameAs: `business health ${sameAs}` } : {}),
  request: () => ({ method: 'POST', path: '/functions/v1/business-health-analytics', body: { period } }),
});

/** The store days of a custom period: the 365 days ending `today`. */
export function yearOfDays(today) {
  return { from: new Date(Date.parse(`${today}T00:00:00Z`) - 364 * 86_400_000).toISOString().slice(0, 10), to: today };
}

/** Version 2.0's custom period of a year of store days, against the year before it. */
const health2Custom = {
  name: 'business health 2.0 custom 365 days',
  kind: 'read',
  caller: 'service',
  request: (_n, { today }) => ({
    method: 'POST',
    path: '/functions/v1/business-health-analytics',
    body: { period: 'custom', ...yearOfDays(today) },
    headers: { accept: 'application/vnd.api+json;version=2.0' },
  }),
};

/** Version 2.0 of the report (issue 42): the same, with marketing scored from the campaigns' return. */
const health2 = (period, sameAs) => ({
  name: `business health 2.0 ${period}`,
  kind: 'read',
  caller: 'service',
  ...(sameAs ? { sameAs: `business health 2.0 ${sameAs}` } : {}),
  request: () => ({
    method: 'POST',
    path: '/functions/v1/business-health-analytics',
    body: { period },
    headers: { accept: 'application/vnd.api+json;version=2.0' },
  }),
});

/** The 50 lines of the bench's n-th delivery. */
export function deliveryLines(n, productIds, today) {
  const expires = new Date(Date.parse(`${today}T00:00:00Z`) + 180 * 86_400_000).toISOString().slice(0, 10);
  return Array.from({ length: 50 }, (_, i) => ({
    product_id: productIds[(n * 50 + i) % productIds.length],
    quantity: 1 + (i % 5),
    lot_number: `B${n}-${i}`,
    expires_on: expires,
  }));
}

/** The n-th order search: a customer's e-mail, or the name of one (`劉怡欣`), as seed:demo makes them. */
export function orderSearchTerm(n) {
  const customer = 1 + ((n * 7919) % 100_000);
  return n % 2 === 0 ? `demo-7-${customer}@demo.example` : demoCustomerName(7, customer);
}

export function adjustment(n, productIds) {
  const up = Math.floor(n / productIds.length) % 2 === 0;
  return {
    product_id: productIds[n % productIds.length],
    adjust_quantity: up ? 1 : -1,
    reason: up ? 'return_goods' : 'damage_writeoff',
  };
}

/**
 * The orders screen as staff open it, on 1M orders: all time (its default), the presets of whole store days,
 * a search that matches every customer (the broadest three characters), over all time and this month, and
 * the most common surname, held by about a tenth of the customers (scripts/lib/demo-names.mjs).
 */
export const ORDER_LIST_PRESETS = [
  ['orders list: all time', 'all'],
  ['orders list: this month', 'month'],
  ['orders list: last 7 days', 'last7'],
  ['orders list: yesterday', 'yesterday'],
  ['orders list: search matching every customer ("dem")', 'dem'],
  ['orders list: that search this month', 'dem-month'],
  ['orders list: a surname held by a tenth of the customers ("陳")', 'surname'],
];
/** The presets whose code is another's with other store days (`sameAs` below). */
const SAME_AS_PRESET = { last7: 'orders list: this month', yesterday: 'orders list: this month' };

/** The list's query string for a preset (`orderWindows`: store midnights, from the bench's context). */
export function orderListQuery(preset, orderWindows) {
  if (preset === 'all') return '';
  if (preset === 'dem') return 'search=dem';
  if (preset === 'dem-month') return new URLSearchParams({ search: 'dem', ...orderWindows.month }).toString();
  if (preset === 'surname') return new URLSearchParams({ search: '陳' }).toString();
  return new URLSearchParams(orderWindows[preset]).toString();
}

const SEARCH_TERMS = ['spring tea', 'vip', 'flash', 'coffee bundle', 'campaign 4242', 'launch'];
export const searchTerm = (n) => encodeURIComponent(SEARCH_TERMS[n % SEARCH_TERMS.length]);

export const scenarios = [
  {
    name: 'campaign-types list',
    kind: 'read',
    caller: 'admin',
    request: () => ({ method: 'GET', path: '/functions/v1/campaign-types' }),
  },
  {
    name: 'stock-in',
    kind: 'write',
    caller: 'admin',
    request: (n, { productIds }) => ({
      method: 'POST',
      path: '/functions/v1/stock-in',
      body: { product_id: productIds[n % productIds.length], quantity: 1 },
    }),
  },
  {
    // A delivery of 50 products, a lot each with its number and expiry: request n takes the next 50 of the
    // bench's products, so concurrent deliveries share products as real ones do.
    name: 'stock-in batch (50 lines)',
    kind: 'write',
    caller: 'admin',
    request: (n, { productIds, today }) => ({
      method: 'POST',
      path: '/functions/v1/stock-in/batch',
      body: { source: 'purchase_order', items: deliveryLines(n, productIds, today) },
    }),
  },
  {
    // Up one, then down one, per product: stock stays level however long the run.
    name: 'stock-adjust (product mode)',
    kind: 'write',
    caller: 'admin',
    request: (n, { productIds }) => ({
      method: 'POST',
      path: '/functions/v1/stock-adjust',
      body: adjustment(n, productIds),
    }),
  },
  {
    name: 'attribution (1,000 active campaigns)',
    kind: 'read',
    caller: 'admin',
    request: (_n, { today }) => ({
      method: 'GET',
      path: `/functions/v1/campaigns/attribution?date=${today}&order_amount=1000`,
    }),
  },
  {
    // As a browser asks for it: the 334 KB answer gzipped (once per distinct answer, _shared/http.ts).
    name: 'attribution (1,000 active campaigns, gzip)',
    kind: 'read',
    caller: 'admin',
    request: (_n, { today }) => ({
      method: 'GET',
      path: `/functions/v1/campaigns/attribution?date=${today}&order_amount=1000`,
      headers: { 'accept-encoding': 'gzip' },
    }),
  },
  {
    name: 'campaign metrics',
    kind: 'read',
    caller: 'admin',
    request: (n, { campaignIds }) => ({
      method: 'GET',
      path: `/functions/v1/campaigns/${campaignIds[n % campaignIds.length]}/metrics`,
    }),
  },
  {
    name: 'campaign list search (100,000 campaigns)',
    kind: 'read',
    caller: 'admin',
    request: (n) => ({ method: 'GET', path: `/functions/v1/campaigns?search=${searchTerm(n)}&limit=20` }),
  },
  {
    // As staff look an order up: a customer's e-mail, or part of a name, over 1M orders and 100k customers.
    name: 'orders search (1M orders)',
    kind: 'read',
    caller: 'admin',
    request: (n) => ({ method: 'GET', path: `/functions/v1/orders?search=${encodeURIComponent(orderSearchTerm(n))}` }),
  },
  ...ORDER_LIST_PRESETS.map(([name, preset]) => ({
    name,
    kind: 'read',
    caller: 'admin',
    ...(SAME_AS_PRESET[preset] ? { sameAs: SAME_AS_PRESET[preset] } : {}),
    request: (_, { orderWindows }) => ({
      method: 'GET',
      path: `/functions/v1/orders?${orderListQuery(preset, orderWindows)}`,
    }),
  })),
  health('7d'),
  health('30d', '7d'),
  health('90d', '7d'),
  health2('7d'),
  health2('30d', '7d'),
  health2('90d', '7d'),
  health2Custom,
];
