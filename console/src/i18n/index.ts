/**
 * The console's two languages: Traditional Chinese (zh-TW) and English. Every word on screen comes from a
 * message catalogue (`defineMessages`, one per area, each language beside the other and typed alike, so a
 * message missing in one language does not compile), and every number, amount and date from `Intl` in
 * the chosen locale (format/numbers.ts, format/store-time.ts). The choice is remembered in localStorage; the first time, a browser
 * that prefers Chinese gets zh-TW, any other English. Switching re-renders the whole console (app.tsx
 * keys it by locale), which also asks the API again, in the new language (`Accept-Language`).
 */
import { useEffect, useState } from 'preact/hooks';

export const LOCALES = ['zh-TW', 'en'] as const;
export type Locale = (typeof LOCALES)[number];
/** Each locale's name in its own language, for the switch. */
export const LOCALE_NAMES: Record<Locale, string> = { 'zh-TW': '中文', en: 'English' };

const STORAGE_KEY = 'store-console.locale';

/** A message: text, or a function of its values (counts, names) for plurals and interpolation. */
// deno-lint-ignore no-explicit-any
type Message = string | ((...args: any[]) => string);

/** One area's messages in both languages; zh-TW must have every English message, with the same shape. */
export function defineMessages<E extends Record<string, Message>>(en: E, zh: E): { en: E; 'zh-TW': E } {
  return { en, 'zh-TW': zh };
}

function storedLocale(): Locale | undefined {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return LOCALES.find((l) => l === value);
  } catch {
    return undefined;
  }
}

/** zh-TW for a browser whose first preference is Chinese (any script: the console has only Traditional), else English. */
export function browserLocale(languages: readonly string[] = navigator.languages ?? [navigator.language]): Locale {
  const first = (languages[0] ?? '').toLowerCase();
  return first === 'zh' || first.startsWith('zh-') ? 'zh-TW' : 'en';
}

let current: Locale = storedLocale() ?? browserLocale();
const listeners = new Set<() => void>();
document.documentElement.lang = current;

export function locale(): Locale {
  return current;
}

export function setLocale(next: Locale) {
  if (next === current) return;
  current = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // Private browsing may refuse storage: the choice then lasts until the page is reloaded.
  }
  document.documentElement.lang = next;
  for (const listener of listeners) listener();
}

/** The current locale, re-rendering the caller when it changes. */
export function useLocale(): Locale {
  const [value, setValue] = useState(current);
  useEffect(() => {
    const update = () => setValue(current);
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return value;
}

/** An area's messages in the current locale. */
export function text<T>(catalogue: { en: T; 'zh-TW': T }): T {
  return catalogue[current];
}
