/**
 * The most an amount of money may be: the columns that hold TWD are numeric(12, 2) (an order's total, a
 * line's price, a lot's unit cost; private.max_order_total in SQL). A plain constant, so the console reads it
 * without zod.
 */
export const MAX_MONEY = 9_999_999_999.99;
