/**
 * What the campaign endpoints accept: seed 03 area A and CONTRACT §3A. zod checks shape (types, formats,
 * lengths, unknown fields: 400); the rules a value breaks against the data or the rules of the domain
 * (date order, weight range, status moves, overlap: 422) are the database's.
 */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { MAX_BUDGET } from '../_shared/money.ts';
import { Limits } from '../_shared/database.types.ts';
import { enumOf, isoDate, patchBody, queryInteger, twoDecimals, uuid } from '../_shared/validation.ts';

// A non-string is refused with zod's own type message, like every other campaign field.
export const campaignId = z.string().pipe(uuid);

/** `/:id`, `/:id/metrics` and `/:id/history`. */
export const campaignPath = z.object({ id: campaignId });

const status = enumOf(enums.campaign_status);
const fields = {
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  description: z.string().max(2000, 'at most 2000 characters').nullable(),
  start_date: isoDate,
  end_date: isoDate,
  budget: z
    .number()
    .min(0, 'must be at least 0')
    .max(MAX_BUDGET, 'must be below 1000000000000')
    .check(twoDecimals()),
  target_audience: z.string().max(500, 'at most 500 characters').nullable(),
  // Range and precision are the database's rule (422 ATTRIBUTION_WEIGHT_EXCEEDED), for rpc callers too.
  attribution_weight: z.number(),
  priority_score: z.number().int('must be a whole number')
    .min(0, `must be between 0 and ${Limits.priority}`)
    .max(Limits.priority, `must be between 0 and ${Limits.priority}`),
};

export const createBody = z.strictObject({
  name: fields.name,
  description: fields.description.optional(),
  start_date: fields.start_date,
  end_date: fields.end_date,
  budget: fields.budget.optional(),
  target_audience: fields.target_audience.optional(),
  campaign_type: z.string().min(1, 'must not be empty').max(50, 'at most 50 characters'),
  attribution_weight: fields.attribution_weight.optional(),
  priority_score: fields.priority_score.optional(),
});

export const updateBody = patchBody({ ...fields, status });

export const listQuery = z.strictObject({
  page: queryInteger(1, 1_000_000).optional(),
  limit: queryInteger(1, 100).optional(),
  status: status.optional(),
  search: z.string().max(100, 'at most 100 characters').optional(),
  start_date: isoDate.optional(),
  end_date: isoDate.optional(),
});

const campaignIds = z.array(campaignId).min(1, 'must name at least one campaign').max(500, 'at most 500 ids');

export const batchBody = z.strictObject({
  action: z.literal('update_status', 'unknown action; supported: update_status'),
  campaign_ids: campaignIds,
  data: z.strictObject({ status }),
});

export const bulkStatusBody = z.strictObject({ campaign_ids: campaignIds, status });

/** The most entries `limit` may ask for: far more campaigns than a day has ever counted. */
export const MAX_ATTRIBUTION_ENTRIES = 100_000;

/**
 * GET /campaigns/attribution: a front end's door to calculate_campaign_attributions. `limit` keeps the
 * first entries of `attributions` in the answer's order (largest share first); the day's count and layers
 * still describe every campaign counted.
 */
export const attributionQuery = z.strictObject({
  date: isoDate,
  order_amount: z
    .string()
    .regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be an amount of at least 0 with at most 2 decimals')
    .optional(),
  limit: queryInteger(1, MAX_ATTRIBUTION_ENTRIES).optional(),
});

/** The most days one call of the calendar or an analysis covers (a leap year). */
export const MAX_RANGE_DAYS = 366;

/**
 * GET /campaigns/calendar, /collaboration and /revenue-attribution: the days from `from` to `to`, both
 * included, both required. Their order (422) and the span (at most MAX_RANGE_DAYS, 400) are the handler's.
 */
export const rangeQuery = z.strictObject({ from: isoDate, to: isoDate });
