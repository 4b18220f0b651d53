/**
 * The catalogue's health summary (CONTRACT §1; the formula is ours, docs/campaign-types.md explains it).
 * A pure function of the catalogue's rows, so it is unit-tested without a database.
 *
 *   coverage      60 points: 15 for each layer with at least one active type
 *   activity      25 points: the share of types that are active
 *   attribution   15 points: the share of active types whose weight is above 0 (a 0 weight gets no credit)
 */
import { enums } from '../_shared/enums.ts';
import { type AttributionLayer, LAYER_INFO } from '../_shared/layers.ts';

export interface CatalogueEntry {
  type_code: string;
  attribution_layer: AttributionLayer;
  default_weight: number;
  is_active: boolean;
}

export interface CatalogueHealth {
  total_types: number;
  active_types: number;
  layers_coverage: Record<AttributionLayer, number>;
  system_health_score: number;
  recommendations: string[];
}

export function catalogueHealth(entries: CatalogueEntry[]): CatalogueHealth {
  const active = entries.filter((entry) => entry.is_active);
  const coverage = Object.fromEntries(enums.attribution_layer.map((layer) => [layer, 0])) as Record<
    AttributionLayer,
    number
  >;
  for (const entry of active) coverage[entry.attribution_layer] += 1;

  const uncovered = enums.attribution_layer.filter((layer) => coverage[layer] === 0);
  const weightless = active.filter((entry) => entry.default_weight <= 0);
  const inactiveCount = entries.length - active.length;

  const score = entries.length === 0 ? 0 : 15 * (enums.attribution_layer.length - uncovered.length) +
    25 * (active.length / entries.length) +
    (active.length === 0 ? 0 : 15 * ((active.length - weightless.length) / active.length));

  const recommendations = [
    ...uncovered.map((layer) =>
      `No active type in the ${layer} layer (${
        LAYER_INFO[layer].display_name
      }): add or reactivate one so its campaigns can be attributed`
    ),
    ...(weightless.length
      ? [
        `${weightless.length} active type(s) have weight 0 and receive no attribution: ${
          weightless.map((e) => e.type_code).join(', ')
        }`,
      ]
      : []),
    ...(inactiveCount
      ? [
        `${inactiveCount} of ${entries.length} types are inactive: reactivate the ones still in use or leave them for history`,
      ]
      : []),
  ];

  return {
    total_types: entries.length,
    active_types: active.length,
    layers_coverage: coverage,
    system_health_score: Math.round(score * 100) / 100,
    recommendations,
  };
}
