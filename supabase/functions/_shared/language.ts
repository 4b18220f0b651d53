/**
 * The languages the API's words come in: the seeds' Traditional Chinese, the default, and English. Only
 * words change (the health report's rating, trend description and insights); numbers and codes do not.
 */
export const LANGUAGES = ['zh-TW', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Which of ours a language range names: `en`, `en-GB` → en; `zh`, `zh-TW`, `zh-Hant-HK` → zh-TW. */
function ours(range: string): Language | undefined {
  const [primary] = range.split('-');
  if (primary === 'en') return 'en';
  if (primary === 'zh' && !/^zh-(cn|sg|hans)\b/.test(range)) return 'zh-TW';
  return undefined;
}

/**
 * The language an Accept-Language header prefers among ours (RFC 9110 12.5.4): the range with the highest
 * weight that names one of ours, the earlier on a tie; `*`, no header, or nothing of ours is the default.
 * Simplified Chinese ranges are not ours, rather than being answered in Traditional.
 */
export function preferredLanguage(header: string | null): Language {
  if (!header) return LANGUAGES[0];
  let best: { language: Language; weight: number } | undefined;
  for (const item of header.slice(0, 1024).split(',')) {
    const [range, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!range) continue;
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight) || weight <= 0) continue;
    const language = range === '*' ? LANGUAGES[0] : ours(range);
    if (language && (!best || weight > best.weight)) best = { language, weight };
  }
  return best?.language ?? LANGUAGES[0];
}
