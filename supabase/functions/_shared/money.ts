/**
 * The most an amount of money may be: the columns that hold TWD are numeric(12, 2) (an order's total, a
 * line's price, a lot's unit cost; private.max_order_total in SQL). A plain constant, so the console reads it
 * without zod.
 */
export const MAX_MONEY = 9_999_999_999.99;

/**
 * The most a campaign's budget may be: `campaigns.budget` is numeric(14, 2), wider than an order's money. The
 * API's schema and the console's form both read it, so the form never refuses what the API takes.
 */
export const MAX_BUDGET = 999_999_999_999.99;
