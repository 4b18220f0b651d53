import { enums } from './api/enums.ts';
import { serverNow } from './api/server-clock.ts';
import { common } from './i18n/common.ts';
import { locale, text } from './i18n/index.ts';

/** The store's currency (ISO 4217), from config.json: every amount is shown in it. */
let currency = 'TWD';
/** How many decimals amounts show: config.json's `currencyDigits`, else as the currency is written in practice. */
let currencyDigits = 2;
/**
 * Currencies written in whole units in practice though ISO 4217 gives them cents: a price in Taiwan reads
 * NT$1,280, never NT$1,280.00. Any other currency shows the decimals `Intl` gives it.
 */
const WHOLE_UNITS = new Set(['TWD']);
/**
 * The currency's symbol, the same in both languages: the English one (NT$), since zh-TW writes its own
 * currency as a bare `$`.
 */
let currencySymbol = 'NT$';

export function setCurrency(code: string, digits?: number) {
  currency = code;
  currencyDigits = digits ??
    (WHOLE_UNITS.has(code)
      ? 0
      : new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ??
        2);
  currencySymbol = new Intl.NumberFormat('en', { style: 'currency', currency: code }).formatToParts(0)
    .find((p) => p.type === 'currency')?.value ?? code;
  formatters.clear();
}

/** Intl formatters by locale and kind, made once each. */
const formatters = new Map<string, Intl.NumberFormat>();
function number(kind: 'int' | 'money' | 'num' | 'pct', digits = 1) {
  const key = `${locale()}:${kind}:${digits}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(
      locale(),
      kind === 'money'
        ? { style: 'currency', currency, minimumFractionDigits: currencyDigits, maximumFractionDigits: currencyDigits }
        : kind === 'pct'
        ? { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }
        : kind === 'num'
        ? { maximumFractionDigits: 2 }
        : {},
    );
    formatters.set(key, f);
  }
  return f;
}

const missing = (n: number | null | undefined): n is null | undefined => n === null || n === undefined;

/**
 * The store's time zone (GET /store, an IANA name): every instant is shown in it and every "today" is its
 * day, whatever the browser's zone, as the API counts days. The console sets it before any screen shows.
 */
let timeZone = 'UTC';
export function setTimeZone(zone: string) {
  timeZone = zone;
  dates.clear();
}
export const storeTimeZone = () => timeZone;

/** The store's zone as people name it in the chosen language ("Taiwan Standard Time", "台北標準時間"). */
export function storeZoneName() {
  return new Intl.DateTimeFormat(locale(), { timeZone, timeZoneName: 'longGeneric' }).formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
}

/** Date formatters by locale and kind, in the store's zone, made once each. */
const dates = new Map<string, Intl.DateTimeFormat>();
function dateFormat(kind: 'dateTime' | 'parts', lang: string) {
  const key = `${lang}:${kind}`;
  let f = dates.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(
      lang,
      kind === 'dateTime' ? { dateStyle: 'medium', timeStyle: 'short', timeZone } : {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      },
    );
    dates.set(key, f);
  }
  return f;
}

/** An instant's wall-clock fields in the store's zone, and its offset from UTC there in minutes. */
function storeClock(instant: Date) {
  const p = Object.fromEntries(dateFormat('parts', 'en-US').formatToParts(instant).map((x) => [x.type, x.value]));
  const wall = `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
  const offset = Math.round((Date.parse(`${wall}Z`) - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  return { day: wall.slice(0, 10), wall, offset };
}

/**
 * An instant on the store's wall clock as spreadsheets read a date and time (`2026-11-21 00:30:00`), for
 * files: Excel, Numbers and Google Sheets take this form as a date, but not ISO 8601's `T` and offset.
 */
export function spreadsheetTime(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return storeClock(d).wall.replace('T', ' ');
}

/** The store's day (`YYYY-MM-DD`) an instant falls on. */
export function storeDayOf(instant: string | number | Date): string {
  return storeClock(new Date(instant)).day;
}

/**
 * The instant the store's clocks show `wall` (`YYYY-MM-DDTHH:MM`, as a datetime-local field gives it), ISO
 * 8601 in UTC: what the store's staff type is the store's time, not the browser's.
 */
export function fromStoreWall(wall: string): string | null {
  const asIfUtc = Date.parse(`${wall.length === 16 ? `${wall}:00` : wall}Z`);
  if (Number.isNaN(asIfUtc)) return null;
  // The offset at the guess, then at the corrected instant (they differ only next to a change of offset).
  let instant = asIfUtc - storeClock(new Date(asIfUtc)).offset * 60_000;
  instant = asIfUtc - storeClock(new Date(instant)).offset * 60_000;
  return new Date(instant).toISOString();
}

/** Numbers, amounts, shares and dates in the chosen locale (`Intl`), amounts in the store's currency. */
export const fmt = {
  int: (n: number | null | undefined) => (missing(n) ? '—' : number('int').format(n)),
  money: (n: number | null | undefined) =>
    missing(n)
      ? '—'
      : number('money').formatToParts(n).map((p) => (p.type === 'currency' ? currencySymbol : p.value)).join(''),
  num: (n: number | null | undefined) => (missing(n) ? '—' : number('num').format(n)),
  pct: (n: number, digits = 1) => number('pct', digits).format(n),
  /** An instant, in the store's zone. */
  dateTime: (iso: string) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : dateFormat('dateTime', locale()).format(d);
  },
  /** A `YYYY-MM-DD` day as the locale writes it (the day itself, whatever the time zone). */
  day: (date: string) => {
    const d = new Date(`${date}T00:00:00Z`);
    return Number.isNaN(d.getTime()) ? date : d.toLocaleDateString(locale(), { dateStyle: 'medium', timeZone: 'UTC' });
  },
};

/** Today in the store (days are the store's days, as the API counts them), moved by `offsetDays`. */
export function storeToday(offsetDays = 0) {
  return addDays(storeDayOf(serverNow()), offsetDays);
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
/**
 * What a campaign is today, as staff read it: an active campaign whose first day is still ahead is
 * scheduled, not running (「已排程」, not 「進行中」); any other is its status.
 */
export const campaignState = (c: { status: CampaignStatus; start_date: string }) =>
  c.status === 'active' && c.start_date > storeToday() ? 'scheduled' as const : c.status;
export const campaignStateLabel = (c: { status: CampaignStatus; start_date: string }) =>
  text(common)[`campaign.${campaignState(c)}`];
/** A campaign's badge: its state today (scheduled or its status). */
export function CampaignBadge({ campaign }: { campaign: { status: CampaignStatus; start_date: string } }) {
  return <Badge kind={campaignState(campaign)}>{campaignStateLabel(campaign)}</Badge>;
}
/** The button that moves a campaign to `status`. */
export const statusVerb = (status: CampaignStatus) => text(common)[`verb.${status}`];

export const ORDER_STATUSES = enums.order_status;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const orderStatusLabel = (status: OrderStatus) => text(common)[`order.${status}`];

export function Badge({ kind, children }: { kind: string; children: string }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}
