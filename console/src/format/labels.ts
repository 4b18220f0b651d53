/** The words for the API's codes the screens show (layers, campaign and order statuses), in the chosen language. */
import { enums } from '../api/enums.ts';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { storeToday } from './store-time.ts';

export const LAYERS = enums.attribution_layer;
export type Layer = (typeof LAYERS)[number];
export const layerLabel = (layer: Layer) => text(common)[`layer.${layer}`];

export const STATUSES = enums.campaign_status;
export type CampaignStatus = (typeof STATUSES)[number];
export const statusLabel = (status: CampaignStatus) => text(common)[`campaign.${status}`];
/**
 * What a campaign is today, as staff read it: an active campaign whose first day is still ahead is
 * scheduled, not running (「已排程」, not 「進行中」); any other is its status.
 */
export const campaignState = (c: { status: CampaignStatus; start_date: string }) =>
  c.status === 'active' && c.start_date > storeToday() ? 'scheduled' as const : c.status;
export const campaignStateLabel = (c: { status: CampaignStatus; start_date: string }) =>
  text(common)[`campaign.${campaignState(c)}`];
/** The button that moves a campaign to `status`. */
export const statusVerb = (status: CampaignStatus) => text(common)[`verb.${status}`];

export const ORDER_STATUSES = enums.order_status;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const orderStatusLabel = (status: OrderStatus) => text(common)[`order.${status}`];
