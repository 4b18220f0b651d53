// Which language the API's words come in, from the Accept-Language header (RFC 9110 12.5.4): ours are the
// seeds' Traditional Chinese (the default) and English.
import { describe, expect, it } from 'vitest';
import { preferredLanguage } from '../../supabase/functions/_shared/language.ts';

describe('preferredLanguage', () => {
  it.each([
    [null, 'zh-TW'],
    ['', 'zh-TW'],
    ['en', 'en'],
    ['en-GB,en;q=0.9', 'en'],
    ['zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7', 'zh-TW'],
    ['zh-Hant-HK', 'zh-TW'],
    ['fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5', 'en'],
    ['de, *;q=0.1', 'zh-TW'],
    ['zh-CN, en;q=0.5', 'en'],
    ['zh-Hans, zh-SG;q=0.9', 'zh-TW'],
    ['en;q=0, zh', 'zh-TW'],
    ['en;q=0.5, zh-TW;q=0.8', 'zh-TW'],
    ['zh-TW;q=0.5, EN-us;q=0.8', 'en'],
    ['en;q=abc, zh;q=0.1', 'zh-TW'],
    [`${'x,'.repeat(5000)}en`, 'zh-TW'],
  ])('%j → %s', (header, language) => {
    expect(preferredLanguage(header)).toBe(language);
  });
});
