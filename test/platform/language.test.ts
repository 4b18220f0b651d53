// Which language the API's words come in, from the Accept-Language header (RFC 9110 12.5.4): ours are the
// seeds' Traditional Chinese (the default) and English.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { detectLanguage } from '../../supabase/functions/_shared/language.ts';

/** The language Hono's middleware, as the functions set it up, finds in a request with this header. */
async function preferredLanguage(header: string | null): Promise<string> {
  const app = new Hono<{ Variables: { language: string } }>().use(detectLanguage).get('/', (c) => c.text(c.var.language));
  return await (await app.request('/', { headers: header === null ? {} : { 'accept-language': header } })).text();
}

describe('the language of the API\'s words', () => {
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
    // Hono's reading, where ours differed: a weight that is not a number counts as 1, and a long header is
    // read to its end (the local server's front bounds a header's size).
    ['en;q=abc, zh;q=0.1', 'en'],
    [`${'x,'.repeat(200)}en`, 'en'],
  ])('%j → %s', async (header, language) => {
    expect(await preferredLanguage(header)).toBe(language);
  });
});
