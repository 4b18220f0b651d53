/**
 * The most an amount of money may be, as the database's column types hold it (`NumericLimits`, generated
 * by `npm run types`). A plain constant, so the console reads it without zod; the API's schemas and the
 * console's forms both read these, so a form never refuses what the API takes.
 */
import { NumericLimits } from './database.types.ts';

/** An order's total, a line's price, a lot's unit cost: numeric(12, 2) (private.max_order_total in SQL). */
export const MAX_MONEY = NumericLimits.orders.total_amount;

/** A campaign's budget: numeric(14, 2), wider than an order's money. */
export const MAX_BUDGET = NumericLimits.campaigns.budget;

/** A campaign type's default weight, and a campaign's own: numeric(3, 2). */
export const MAX_WEIGHT = NumericLimits.campaign_type_config.default_weight;
