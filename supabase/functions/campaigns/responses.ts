/** What the campaign endpoints answer (seed 03 area A), for the OpenAPI document. */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { day, success, timestamp } from '../_shared/responses.ts';

const layer = z.enum(enums.attribution_layer);
const status = z.enum(enums.campaign_status);
const id = z.guid();
const strength = z.enum(['dominant', 'significant', 'moderate', 'minor']);
const intensity = z.enum(['high', 'medium', 'low']);

export const campaign = z.object({
  id: id,
  name: z.string(),
  description: z.string().nullable(),
  status,
  start_date: day,
  end_date: day,
  budget: z.number().nullable(),
  target_audience: z.string().nullable(),
  campaign_type: z.string(),
  attribution_layer: layer,
  priority_score: z.number().int(),
  attribution_weight: z.number(),
  created_at: timestamp,
  updated_at: timestamp,
  allowed_transitions: z.array(status).describe('The statuses this campaign may move to next; empty once it is final'),
});

export const campaignResponse = success(campaign);

export const listResponse = success(z.object({
  campaigns: z.array(campaign.pick({
    id: true,
    name: true,
    status: true,
    start_date: true,
    end_date: true,
    budget: true,
    created_at: true,
    allowed_transitions: true,
  })),
  pagination: z.object({
    current_page: z.number().int(),
    total_pages: z.number().int(),
    total_count: z.number().int(),
    per_page: z.number().int(),
  }),
}));

export const statsResponse = success(z.object({
  total_campaigns: z.number().int(),
  active_campaigns: z.number().int(),
  draft_campaigns: z.number().int(),
  completed_campaigns: z.number().int(),
  paused_campaigns: z.number().int(),
  cancelled_campaigns: z.number().int(),
  total_budget: z.number(),
  active_budget: z.number(),
}));

export const statusesResponse = success(z.object({ updated_count: z.number().int(), campaigns: z.array(campaign) }));

export const attributionResponse = success(z.object({
  attribution_date: day,
  total_active_campaigns: z.number().int(),
  active_layers: z.array(layer),
  attributions: z.array(z.object({
    campaign_id: id,
    campaign_name: z.string(),
    campaign_type: z.string(),
    attribution_layer: layer,
    raw_weight: z.number(),
    normalized_weight: z.number(),
    attribution_strength: strength,
    period_start: day,
    period_end: day,
    attributed_amount: z.number().optional(),
  })),
  order_amount: z.number().optional(),
}));

export const metricsResponse = success(z.object({
  campaign_id: id,
  metrics: z.object({
    attributed_revenue: z.number(),
    attribution_days: z.number().int(),
    avg_daily_revenue: z.number(),
    collaboration_campaigns: z.number().int(),
    competition_intensity: intensity,
    spend_to_date: z.number().nullable().describe(
      'Spent over its days up to today: the spend recorded for it, or, with none, its budget spread over its ' +
        'planned days on each day it was active; null before it has a day',
    ),
    spend_recorded: z.boolean().describe('Whether spend_to_date is recorded spend rather than the budget spread'),
    roas: z.number().nullable().describe('attributed_revenue ÷ spend_to_date (return on ad spend); null with no spend'),
    pacing: z.number().nullable().describe(
      'spend_to_date ÷ the budget its planned days so far allow; above 1 it spends ahead of its days; null ' +
        'before it starts or with no budget',
    ),
  }),
  daily_attribution: z.array(z.object({
    date: day,
    attributed_amount: z.number(),
    attribution_percentage: z.number(),
  })),
}));

export const historyResponse = success(z.object({
  campaign_id: id,
  history: z.array(z.object({
    from_status: status.nullable(),
    to_status: status,
    changed_at: timestamp,
    changed_by: id.nullable(),
    changed_by_email: z.string().nullable()
      .describe(
        'Shown to administrators, and to the operator on their own moves; null for the service key and to anyone else',
      ),
    changed_by_role: z.string(),
  })),
}));

export const calendarResponse = success(z.object({
  from: day,
  to: day,
  days: z.array(z.object({
    date: day,
    active_campaign_count: z.number().int(),
    active_campaigns: z.array(z.object({
      campaign_id: id,
      campaign_name: z.string(),
      campaign_type: z.string(),
      attribution_layer: layer,
      normalized_weight: z.number(),
      attribution_strength: strength,
      attributed_amount: z.number(),
    })),
    active_layers: z.array(layer),
    total_revenue: z.number(),
    competition_intensity: intensity,
  })),
}));

export const revenueAttributionResponse = success(z.object({
  from: day,
  to: day,
  campaigns: z.array(z.object({
    campaign_id: id,
    campaign_name: z.string(),
    campaign_type: z.string(),
    attribution_layer: layer,
    analysis_date: day,
    active_days: z.number().int(),
    first_active_date: day,
    last_active_date: day,
    total_attributed_revenue: z.number(),
    avg_attribution_weight: z.number(),
  })),
}));

export const collaborationResponse = success(z.object({
  from: day,
  to: day,
  pairs: z.array(z.object({
    campaign_1_id: id,
    campaign_1_name: z.string(),
    campaign_1_layer: layer,
    campaign_2_id: id,
    campaign_2_name: z.string(),
    campaign_2_layer: layer,
    overlap_days: z.number().int(),
    first_overlap_date: day,
    last_overlap_date: day,
    same_layer: z.boolean(),
  })),
}));
