/** What the products endpoints answer, for the OpenAPI document. */
import { z } from 'zod';
import { day, listPage, success, timestamp } from '../_shared/responses.ts';
import { enums } from '../_shared/enums.ts';

const id = z.guid();
const count = z.number().int();
const operatorRole = z.enum(['authenticated', 'service_role']);
/** Shown to admins, and to the operator on their own rows; null for the service key and to anyone else. */
const operatorEmail = z.string().nullable();

/** A row of public.product_stock: the product with its stock and whether it is low. */
export const product = z.object({
  id,
  sku: z.string(),
  name: z.string(),
  is_active: z.boolean(),
  current_stock: count,
  reorder_level: count,
  low_stock: z.boolean(),
  deleted_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  stock_status: z.enum(enums.stock_status).describe(
    'Of the available stock: out_of_stock (none), low_stock (at or below the reorder level), in_stock',
  ),
  reserved_stock: count.describe("What open orders' lines hold of current_stock (on hand)"),
  available_stock: count.describe('On hand and free to sell: current_stock − reserved_stock'),
  allocation: z.enum(enums.stock_allocation).describe(
    'Which lot a sale draws first: fifo (oldest received) or fefo (first to expire, then oldest)',
  ),
});

/** A lot's number and expiry as received; null when the delivery gave none. */
const lotLabel = { lot_number: z.string().nullable(), expires_on: day.nullable() };

export const listResponse = listPage(product);

export const lot = z.object({
  inventory_id: id,
  quantity: count,
  available_quantity: count,
  source: z.string(),
  note: z.string().nullable(),
  received_at: timestamp,
  created_at: timestamp,
  ...lotLabel,
  unit_cost: z.number().nullable().describe('What one unit cost (TWD); null when the delivery did not say'),
});

export const productResponse = success(product.extend({
  units_sold: z.object({ last_7_days: count, last_30_days: count }).describe(
    "Units shipped less units returned, in the last 7 and 30 store days (today's so far included)",
  ),
  lots: z.array(lot),
}));

export const changedResponse = z.object({ success: z.literal(true), data: product, message: z.string() });

export const movement = z.object({
  id: count,
  operation_id: id,
  operation: z.enum(enums.stock_operation),
  inventory_id: id,
  delta: count,
  stock_before: count,
  stock_after: count,
  record_available_before: count,
  record_available_after: count,
  source: z.string().nullable(),
  reason: z.string().nullable(),
  reason_note: z.string().nullable(),
  reference: z.string().nullable(),
  operator_id: id.nullable(),
  operator_email: operatorEmail,
  operator_role: operatorRole,
  created_at: timestamp,
  ...lotLabel,
});

export const movementsResponse = listPage(movement);

export const stockInRecord = z.object({
  id,
  inventory_id: id,
  quantity: count,
  source: z.string(),
  note: z.string().nullable(),
  received_at: timestamp,
  operator_id: id.nullable(),
  operator_email: operatorEmail,
  operator_role: operatorRole,
  created_at: timestamp,
  ...lotLabel,
});

export const stockInsResponse = listPage(stockInRecord);

export const expiringLot = z.object({
  inventory_id: id,
  product_id: id,
  sku: z.string(),
  name: z.string(),
  lot_number: z.string().nullable(),
  expires_on: day,
  days_left: z.number().int().describe('Store days from today to the expiry: 0 expires today, below 0 has expired'),
  available_quantity: count,
});

export const expiringResponse = listPage(expiringLot);

export const summaryResponse = success(z.object({
  out_of_stock: count.describe('Active products with no stock'),
  low_stock: count.describe('Active products with stock at or below their reorder level, out of stock apart'),
  expiring_lots: count.describe(
    'Lots the caller may see with stock left that expire within within_days store days (or have expired)',
  ),
  within_days: count,
}));

/** A customer who received units of a lot: the recall question (GET /products/:id/lots/:lot/orders). */
export const lotOrder = z.object({
  order_id: id,
  status: z.enum(enums.order_status),
  ordered_at: timestamp,
  shipped_at: timestamp.nullable(),
  customer_id: id,
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  quantity: count.describe('Units of this lot the order received'),
  returned_quantity: count.describe('Of them, what a refund put back into the lot'),
});

export const lotOrdersResponse = listPage(lotOrder);
