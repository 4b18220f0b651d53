/**
 * The languages the API's words come in: the seeds' Traditional Chinese, the default, and English. Only
 * words change (the health report's rating, trend description and insights); numbers and codes do not.
 */
import { languageDetector } from 'hono/language';

export const LANGUAGES = ['zh-TW', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/**
 * Which of ours a language range names: `en-GB` → en; `zh`, `zh-Hant-HK` → zh-TW, `*` → the default.
 * Simplified Chinese ranges are not ours, rather than being answered in Traditional.
 */
function ours(range: string): string {
  const lower = range.toLowerCase();
  if (lower === '*') return LANGUAGES[0];
  if (lower === 'zh' || (lower.startsWith('zh-') && !/^zh-(cn|sg|hans)\b/.test(lower))) return 'zh-TW';
  return lower;
}

/**
 * Hono's language middleware, reading Accept-Language only (RFC 9110 12.5.4: the highest weight that names
 * one of ours), remembering nothing: `c.var.language`.
 */
export const detectLanguage = languageDetector({
  supportedLanguages: [...LANGUAGES],
  fallbackLanguage: LANGUAGES[0],
  order: ['header'],
  caches: false,
  convertDetectedLanguage: ours,
});
