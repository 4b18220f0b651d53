import { enums } from './api/enums.ts';
import { common } from './i18n/common.ts';
import { locale, text } from './i18n/index.ts';

/** The store's currency (ISO 4217), from config.json: every amount is shown in it. */
let currency = 'TWD';
export function setCurrency(code: string) {
  currency = code;
  formatters.clear();
}

/** Intl formatters by locale and kind, made once each. */
const formatters = new Map<string, Intl.NumberFormat>();
function number(kind: 'int' | 'money' | 'num' | 'pct', digits = 1) {
  const key = `${locale()}:${kind}:${digits}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale(), kind === 'money'
      ? { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }
      : kind === 'pct'
      ? { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }
      : kind === 'num'
      ? { maximumFractionDigits: 2 }
      : {});
    formatters.set(key, f);
  }
  return f;
}

const missing = (n: number | null | undefined): n is null | undefined => n === null || n === undefined;

/** Numbers, amounts, shares and dates in the chosen locale (`Intl`), amounts in the store's currency. */
export const fmt = {
  int: (n: number | null | undefined) => (missing(n) ? '—' : number('int').format(n)),
  money: (n: number | null | undefined) => (missing(n) ? '—' : number('money').format(n)),
  num: (n: number | null | undefined) => (missing(n) ? '—' : number('num').format(n)),
  pct: (n: number, digits = 1) => number('pct', digits).format(n),
  dateTime: (iso: string) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
  },
  /** A `YYYY-MM-DD` day as the locale writes it (the day itself, whatever the time zone). */
  day: (date: string) => {
    const d = new Date(`${date}T00:00:00Z`);
    return Number.isNaN(d.getTime()) ? date : d.toLocaleDateString(locale(), { dateStyle: 'medium', timeZone: 'UTC' });
  },
};

/** Days are UTC days, as the API counts them. */
export function todayUtc(offsetDays = 0) {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + offsetDays);
  return d.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export const LAYERS = enums.attribution_layer;
export type Layer = (typeof LAYERS)[number];
export const layerLabel = (layer: Layer) => text(common)[`layer.${layer}`];

export const STATUSES = enums.campaign_status;
export type CampaignStatus = (typeof STATUSES)[number];
export const statusLabel = (status: CampaignStatus) => text(common)[`campaign.${status}`];
/** The button that moves a campaign to `status`. */
export const statusVerb = (status: CampaignStatus) => text(common)[`verb.${status}`];

export const ORDER_STATUSES = enums.order_status;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const orderStatusLabel = (status: OrderStatus) => text(common)[`order.${status}`];

export function Badge({ kind, children }: { kind: string; children: string }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}
