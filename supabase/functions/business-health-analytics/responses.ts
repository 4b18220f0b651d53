/** What the health report answers (seed 03 area B), for the OpenAPI document. */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { day, success, timestamp } from '../_shared/responses.ts';
import { PERIODS_2 } from './schemas.ts';

const score = z.number().min(0).max(10);
const count = z.number().int();

/** One insight as version 1.0 answers it. */
const insight = z.object({
  title: z.string(),
  description: z.string(),
  type: z.enum(['warning', 'opportunity', 'info']),
  impact: z.enum(['high', 'medium', 'low']),
  confidence: z.number(),
  category: z.string(),
  actions: z.array(z.string()),
  action_targets: z.array(z.enum(enums.insight_action_target).nullable())
    .describe('Where each action is carried out, in the order of actions: null where it has no screen'),
});

type Dimension = (typeof enums.health_dimension)[number];
/** What each dimension scores, 0-10; system is null when the caller leaves it out. */
const dimensionScore: Partial<Record<Dimension, z.ZodType<number | null>>> = {
  marketing: score.describe("Always 0 in version 1.0; scored from the campaigns' ROAS in 2.0"),
  system: score.nullable(),
};

const report = z.object({
  metrics: z.object(
    Object.fromEntries(enums.health_dimension.map((d) => [d, dimensionScore[d] ?? score])) as Record<
      Dimension,
      z.ZodType<number | null>
    >,
  ),
  scoreDetails: z.object({
    customerQuality: z.number(),
    operationalEfficiency: z.number(),
    supportEffectiveness: z.number(),
    overallScore: z.number(),
    rating: z.string(),
  }),
  trends: z.object({
    direction: z.enum(enums.trend_direction),
    change: z.number(),
    description: z.string(),
    customerChange: z.number(),
    operationalChange: z.number(),
  }).optional(),
  insights: z.array(insight).optional(),
  timestamp,
});

export const reportResponse = success(report);

/** Version 2.0: the marketing score explained, and insights that name their campaign. */
export const reportResponse2 = success(report.extend({
  marketingDetails: z.object({
    status: z.enum(['scored', 'no_campaigns', 'no_spend'])
      .describe('scored, or why marketing is 0: no campaign ran or spent in the window, or they spent nothing'),
    reason: z.string().nullable().describe("Why marketing is 0, in the report's words; null when scored"),
    campaigns: count.describe('The campaigns that were active or recorded spend on the store days read'),
    roas: z.number().nullable().describe('Their attributed revenue ÷ their spend; null when they spent nothing'),
    firstDay: day.describe('The first store day read: spend and attribution are kept by store day'),
    lastDay: day.describe('The last store day read: today, so far'),
  }),
  window: z.object({
    period: z.enum(PERIODS_2),
    from: timestamp,
    before: timestamp.describe("The window's end: now for a window up to now"),
    compareFrom: timestamp,
    compareBefore: timestamp,
  }).describe(
    'The instants the report reads: the period and the one its trend and revenue compare it with (a custom ' +
      "period's store days, orders as they are now, customers scored at each window's end)",
  ),
  insights: z.array(insight.extend({
    campaign_id: z.guid().nullable().describe(
      'The campaign the insight is about, for callers who may read campaigns (signed in, or the service key)',
    ),
  })).optional(),
}));

/** One window's figures, as it stood at its end (`before`); a custom period's, as its store days stand now. */
const periodFigures = z.object({
  from: timestamp,
  before: timestamp,
  first_day: day.optional().describe("A custom period's first store day"),
  last_day: day.optional().describe("A custom period's last store day"),
  revenue: z.number(),
  counted_orders: count,
  orders: count,
  completed: count,
  cancelled: count,
  /** Refunded and not cancelled by then: orders = counted_orders + cancelled + refunded. */
  refunded: count,
  average_order_value: z.number().nullable(),
  active_customers: count,
  new_customers: count,
  tickets_opened: count,
  tickets_resolved: count,
  goods: z.object({
    orders: count.describe("The window's orders shipped with a known cost and not refunded"),
    revenue: z.number().describe('What those orders came to'),
    cost: z.number().describe("What their goods cost (each unit at its lot's cost)"),
    margin: z.number().describe('revenue − cost'),
  }).describe(
    "Cost and margin of the window's orders whose goods' cost is known, as they stand now; orders not shipped, " +
      'without lines, or with a lot of unknown cost are not in it',
  ),
  marketing: z.object({
    first_day: day,
    last_day: day,
    campaigns: count.describe('Campaigns active or with recorded spend on these store days'),
    spend: z.number().describe('What they spent: recorded spend, or the budget spread over their active days'),
    attributed_revenue: z.number().describe('The revenue attribution gives them: every day with a campaign, whole'),
    roas: z.number().nullable().describe('attributed_revenue ÷ spend; null with no spend'),
    attributed_margin: z.number().describe(
      "The margin of those days' orders whose goods cost is known (shipped, every lot costed), as they stand now",
    ),
    margin_roas: z.number().nullable().describe('attributed_margin ÷ spend; null with no spend'),
    top_campaigns: z.array(z.object({
      id: z.guid(),
      name: z.string(),
      spend: z.number(),
      spend_recorded: z.boolean(),
      active_days: count,
      attributed_revenue: z.number().describe("Attribution's own answer for the campaign over these days"),
      roas: z.number().nullable(),
    })).describe('The 20 that spent most, most first'),
  }).describe("The campaigns of the store days the window ends on (a window's spend and attribution are by day)"),
});

export const figuresResponse = success(z.object({
  period: z.enum(PERIODS_2),
  as_of: timestamp,
  current: periodFigures,
  previous: periodFigures,
}));

/** One store day's orders as of now (`as_of`), counted as the figures count a window. */
const dayFigures = z.object({
  date: day,
  from: timestamp,
  before: timestamp,
  revenue: z.number(),
  counted_orders: count,
  orders: count,
  completed: count,
  cancelled: count,
  refunded: count,
});

export const daysResponse = success(z.object({
  time_zone: z.string(),
  as_of: timestamp,
  today: dayFigures,
  yesterday: dayFigures,
}));
