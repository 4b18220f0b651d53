/** What the orders list answers, for the OpenAPI document. */
import { z } from 'zod';
import { day, listPage, success, timestamp } from '../_shared/responses.ts';
import { enums } from '../_shared/enums.ts';

const money = z.number();
const count = z.number().int();

export const order = z.object({
  id: z.guid(),
  customer_id: z.guid(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  status: z.enum(enums.order_status),
  total_amount: money,
  item_count: count,
  ordered_at: timestamp,
  order_date: day,
  promised_at: timestamp.nullable(),
  shipped_at: timestamp.nullable(),
  delivered_at: timestamp.nullable(),
  completed_at: timestamp.nullable(),
  cancelled_at: timestamp.nullable(),
  updated_at: timestamp,
  paid_at: timestamp.nullable(),
  refunded_at: timestamp.nullable(),
});

/**
 * Every order the filters match (not only the page), counted as business health counts them as of `as_of`:
 * revenue over counted orders (not refunded, not cancelled before `as_of`), completed and cancelled by their
 * timestamps, refunded (not cancelled by then); orders = counted_orders + cancelled + refunded.
 */
export const summary = z.object({
  as_of: timestamp,
  orders: count,
  counted_orders: count,
  revenue: money,
  average_order_value: money.nullable(),
  completed: count,
  cancelled: count,
  refunded: count,
  customers: count,
});

export const listResponse = listPage(order).extend({ summary });

/** What happened to an order, oldest first: each step with its time, as far as the order records one. */
export const ORDER_EVENTS = ['placed', 'paid', 'shipped', 'delivered', 'completed', 'cancelled', 'refunded'] as const;

export const orderResponse = success(order.extend({
  timeline: z.array(z.object({ event: z.enum(ORDER_EVENTS), at: timestamp }))
    .describe('The steps the order records a time for, in time order'),
  customer_order_count: count.describe(
    'How many orders the customer has, this one included, as the caller may see them',
  ),
}));
