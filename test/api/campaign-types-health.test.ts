import { describe, expect, it } from 'vitest';
import { type CatalogueEntry, catalogueHealth } from '../../supabase/functions/campaign-types/health.ts';

const entry = (
  layer: CatalogueEntry['attribution_layer'],
  overrides: Partial<CatalogueEntry> = {},
): CatalogueEntry => ({
  type_code: `${layer.replace('-', '_')}_${Math.random().toString(36).slice(2, 7)}`,
  attribution_layer: layer,
  default_weight: 1,
  is_active: true,
  ...overrides,
});

describe('the catalogue health formula', () => {
  it('scores an empty catalogue 0 and recommends covering every layer', () => {
    const health = catalogueHealth([]);
    expect(health).toMatchObject({ total_types: 0, active_types: 0, system_health_score: 0 });
    expect(health.layers_coverage).toEqual({
      'site-wide': 0,
      'target-oriented': 0,
      'category-specific': 0,
      general: 0,
    });
    expect(health.recommendations).toHaveLength(4);
  });

  it('scores a catalogue covering all layers, all active and weighted, 100 with nothing to recommend', () => {
    const health = catalogueHealth([
      entry('site-wide'),
      entry('target-oriented'),
      entry('category-specific'),
      entry('general'),
    ]);
    expect(health.system_health_score).toBe(100);
    expect(health.recommendations).toEqual([]);
  });

  it('takes 15 points for an uncovered layer and names it', () => {
    const health = catalogueHealth([entry('site-wide'), entry('target-oriented'), entry('category-specific')]);
    expect(health.system_health_score).toBe(85);
    expect(health.recommendations).toHaveLength(1);
    expect(health.recommendations[0]).toContain('一般活動');
    expect(catalogueHealth([entry('site-wide')], 'en').recommendations[0]).toContain('target-oriented');
  });

  it('weighs the inactive share (25 points) and zero-weight active types (15 points)', () => {
    const health = catalogueHealth([
      entry('site-wide'),
      entry('target-oriented'),
      entry('category-specific'),
      entry('general', { default_weight: 0 }),
      entry('general', { is_active: false }),
    ]);
    // 60 coverage + 25 × 4/5 + 15 × 3/4 = 91.25
    expect(health.system_health_score).toBe(91.25);
    expect(health).toMatchObject({ total_types: 5, active_types: 4 });
    expect(health.layers_coverage.general).toBe(1);
    expect(health.recommendations).toHaveLength(2);
  });
});
