/** What the catalogue answers (seed 01), for the OpenAPI document. */
import { enums } from '../_shared/enums.ts';
import { z } from 'zod';
import { listPage, success, timestamp } from '../_shared/responses.ts';

export const campaignType = z.object({
  type_code: z.string(),
  display_name_zh: z.string(),
  display_name_en: z.string().nullable(),
  attribution_layer: z.enum(enums.attribution_layer),
  default_weight: z.number(),
  default_priority: z.number().int(),
  color_class: z.string().nullable(),
  icon_name: z.string().nullable(),
  description: z.string().nullable(),
  is_active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const listResponse = listPage(campaignType);

const group = z.object({
  layer: z.enum(enums.attribution_layer),
  display_name: z.string(),
  description: z.string(),
  multiplier: z.number().describe(
    "What the layer weighs in attribution: a campaign's raw weight is its weight times this times (50 + priority) / 100",
  ),
  types: z.array(campaignType),
  total_count: z.number().int(),
});

export const groupsResponse = success(
  z.object(Object.fromEntries(enums.attribution_layer.map((layer) => [layer, group]))),
);

export const healthResponse = success(z.object({
  total_types: z.number().int(),
  active_types: z.number().int(),
  layers_coverage: z.object(Object.fromEntries(enums.attribution_layer.map((layer) => [layer, z.number().int()]))),
  system_health_score: z.number(),
  recommendations: z.array(z.string()),
}));

export const changedResponse = z.object({ success: z.literal(true), data: campaignType, message: z.string() });

export const validateResponse = success(z.object({
  is_valid: z.boolean(),
  type_config: campaignType.optional(),
  validation_message: z.string(),
}));
