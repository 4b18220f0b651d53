/** What the API says of the four attribution layers of seed 01 (the enum's order is their precedence). */
import { enums } from '../_shared/enums.ts';

export type AttributionLayer = (typeof enums.attribution_layer)[number];

export const LAYER_INFO: Record<AttributionLayer, { display_name: string; description: string }> = {
  'site-wide': { display_name: '全站活動', description: '全站性活動，歸因優先級最高' },
  'target-oriented': { display_name: '目標導向活動', description: '針對特定客群的活動，優先級高' },
  'category-specific': { display_name: '品類專屬活動', description: '針對特定商品品類的活動，優先級中等' },
  general: { display_name: '一般活動', description: '一般性活動，基礎優先級' },
};

export function isAttributionLayer(value: unknown): value is AttributionLayer {
  return typeof value === 'string' && (enums.attribution_layer as readonly string[]).includes(value);
}
