/** What the products endpoints answer, for the OpenAPI document. */
import { z } from 'zod';
import { listPage, success, timestamp } from '../_shared/responses.ts';
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
});

export const listResponse = listPage(product);

export const lot = z.object({
  inventory_id: id,
  quantity: count,
  available_quantity: count,
  source: z.string(),
  note: z.string().nullable(),
  received_at: timestamp,
  created_at: timestamp,
});

export const productResponse = success(product.extend({ lots: z.array(lot) }));

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
});

export const stockInsResponse = listPage(stockInRecord);
