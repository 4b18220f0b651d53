/** Numbers and amounts in the chosen language (`Intl`), amounts in the store's currency; `fmt` adds the store's dates. */
import { locale } from '../i18n/index.ts';
import { dateTimeText, dayText } from './store-time.ts';

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
  dateTime: dateTimeText,
  /** A `YYYY-MM-DD` day as the locale writes it (the day itself, whatever the time zone). */
  day: dayText,
};
