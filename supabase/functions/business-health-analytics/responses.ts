/** What the health report answers (seed 03 area B), for the OpenAPI document. */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { day, success, timestamp } from '../_shared/responses.ts';
import { PERIODS } from './schemas.ts';

const score = z.number().min(0).max(10);

export const reportResponse = success(z.object({
  metrics: z.object({
    revenue: score,
    satisfaction: score,
    fulfillment: score,
    support: score,
    products: score,
    marketing: score,
    system: score.nullable(),
  }),
  scoreDetails: z.object({
    customerQuality: z.number(),
    operationalEfficiency: z.number(),
    supportEffectiveness: z.number(),
    overallScore: z.number(),
    rating: z.string(),
  }),
  trends: z.object({
    direction: z.enum(['上升', '下降', '持平']),
    change: z.number(),
    description: z.string(),
    customerChange: z.number(),
    operationalChange: z.number(),
  }).optional(),
  insights: z.array(z.object({
    title: z.string(),
    description: z.string(),
    type: z.enum(['warning', 'opportunity', 'info']),
    impact: z.enum(['high', 'medium', 'low']),
    confidence: z.number(),
    category: z.string(),
    actions: z.array(z.string()),
    action_targets: z.array(z.enum(enums.insight_action_target).nullable())
      .describe('Where each action is carried out, in the order of actions: null where it has no screen'),
  })).optional(),
  timestamp,
}));

const count = z.number().int();

/** One window's figures, as it stood at its end (`before`). */
const periodFigures = z.object({
  from: timestamp,
  before: timestamp,
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
});

export const figuresResponse = success(z.object({
  period: z.enum(PERIODS),
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
