/**
 * The catalogue's health summary (CONTRACT §1; the formula is ours, docs/campaign-types.md explains it).
 * A pure function of the catalogue's rows, so it is unit-tested without a database.
 *
 *   coverage      60 points: 15 for each layer with at least one active type
 *   activity      25 points: the share of types that are active
 *   attribution   15 points: the share of active types whose weight is above 0 (a 0 weight gets no credit)
 */
import { enums } from '../_shared/enums.ts';
import { type Language, LANGUAGES } from '../_shared/language.ts';
import { type AttributionLayer, LAYER_INFO } from './layers.ts';

/** The recommendations' words, in the caller's language (Accept-Language), as the health report's are. */
const WORDS: Record<Language, {
  uncovered: (layer: AttributionLayer) => string;
  weightless: (count: number, codes: string) => string;
  inactive: (count: number, total: number) => string;
}> = {
  'zh-TW': {
    uncovered: (layer) =>
      `${LAYER_INFO[layer].display_name}層級沒有啟用中的類型：請新增或重新啟用一個，這個層級的活動才能參與歸因`,
    weightless: (count, codes) => `${count} 個啟用中的類型權重為 0，不會分到任何歸因：${codes}`,
    inactive: (count, total) => `${total} 個類型中有 ${count} 個已停用：仍在使用的請重新啟用，其餘可留作紀錄`,
  },
  en: {
    uncovered: (layer) =>
      `No active type in the ${layer} layer: add or reactivate one so its campaigns can be attributed`,
    weightless: (count, codes) =>
      `${count} active ${count === 1 ? 'type has' : 'types have'} weight 0 and receive no attribution: ${codes}`,
    inactive: (count, total) =>
      `${count} of ${total} types ${
        count === 1 ? 'is' : 'are'
      } inactive: reactivate the ones still in use or leave them for history`,
  },
};

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

export function catalogueHealth(entries: CatalogueEntry[], language: Language = LANGUAGES[0]): CatalogueHealth {
  const words = WORDS[language];
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
    ...uncovered.map(words.uncovered),
    ...(weightless.length ? [words.weightless(weightless.length, weightless.map((e) => e.type_code).join(', '))] : []),
    ...(inactiveCount ? [words.inactive(inactiveCount, entries.length)] : []),
  ];

  return {
    total_types: entries.length,
    active_types: active.length,
    layers_coverage: coverage,
    system_health_score: Math.round(score * 100) / 100,
    recommendations,
  };
}
