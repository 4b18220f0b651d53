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
  restocked: z.boolean().nullable().describe(
    'A refund after shipping: whether the goods went back into stock (true) or stayed out (false); null otherwise',
  ),
});

/** What a shipped line drew from one lot (lots and costs are shown to administrators). */
const drawnLot = z.object({
  inventory_id: z.guid(),
  lot_number: z.string().nullable(),
  expires_on: day.nullable(),
  quantity: count,
  returned_quantity: count.describe('Of the quantity drawn, what a refund put back'),
  unit_cost: money.nullable(),
});

/** An order's goods: its lines, and its cost and margin where every line's cost is known. */
export const goods = {
  lines: z.array(z.object({
    id: z.guid(),
    line_number: count,
    product_id: z.guid(),
    sku: z.string().nullable(),
    name: z.string().nullable(),
    quantity: count,
    unit_price: money,
    amount: money,
    lots: z.array(drawnLot).describe('The lots the line drew when it shipped (FIFO, or FEFO), empty before'),
    cost: money.nullable().describe(
      'What the drawn units not returned cost; null when not shipped or a lot has no cost',
    ),
    margin: money.nullable().describe('amount − cost, where the cost is known; null once refunded'),
  })).describe('Empty for an order stored without lines'),
  cost: money.nullable().describe(
    "The lines' cost (what the customer kept: nothing once a refund put it all back), where every line's is known",
  ),
  margin: money.nullable().describe('total_amount − cost, where the cost is known; null once refunded'),
};

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

/** What happened to an order, oldest first: each step with its time, as far as the order records one. */
export const ORDER_EVENTS = ['placed', 'paid', 'shipped', 'delivered', 'completed', 'cancelled', 'refunded'] as const;

export const listResponse = listPage(order.extend({
  lines: goods.lines.optional().describe("With with_lines=true: each order's lines, as GET /orders/:id gives them"),
})).extend({ summary });

/** POST and PATCH: the order with its goods. */
export const changedResponse = success(order.omit({ customer_name: true, customer_email: true }).extend(goods));

export const orderResponse = success(order.extend({
  ...goods,
  timeline: z.array(z.object({ event: z.enum(ORDER_EVENTS), at: timestamp }))
    .describe('The steps the order records a time for, in time order'),
  customer_order_count: count.describe(
    'How many orders the customer has, this one included, as the caller may see them',
  ),
}));

/** The moves table: an order with goods moves only along it (GET /orders/moves). */
export const movesResponse = success(z.object({
  moves: z.array(z.object({
    from_status: z.enum(enums.order_status),
    to_status: z.enum(enums.order_status),
    goods: z.enum(['none', 'draw', 'release', 'return']).describe(
      'What the move does to the goods: draw them from the lots (and release the reservation), release the ' +
        'reservation, return them (with restock), or nothing',
    ),
  })),
}));
