// The API's error codes have one catalogue, the enum public.error_code (read through the generated types):
// the functions' ApiError takes only its codes (the compiler checks), the SQL functions must raise only its
// codes, and the console must word every one in both languages, or a refusal reaches a zh-TW screen in English.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { enums } from '../../supabase/functions/_shared/enums.ts';
import { ERROR_WORDS } from '../../console/src/i18n/errors.ts';
import { ROOT } from '../../scripts/lib/stack.mjs';

const sqlFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sqlFiles(path.join(dir, entry.name)) : entry.name.endsWith('.sql') ? [path.join(dir, entry.name)] : []
  );

describe('the error code catalogue', () => {
  it('every code the SQL functions can raise is in the catalogue', () => {
    // Codes are the only upper-case snake_case text literals the schema holds, the catalogue's own aside.
    const catalogue = /create type public\.error_code as enum \([^;]*\);/;
    const raised = new Set(sqlFiles(path.join(ROOT, 'supabase', 'schemas')).flatMap((file) =>
      [...readFileSync(file, 'utf8').replace(catalogue, '').matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)]
        .map((m) => m[1])
    ));
    expect(raised.size).toBeGreaterThan(10);
    expect([...raised].filter((code) => !(enums.error_code as readonly string[]).includes(code))).toEqual([]);
  });

  it('the console words every code in Traditional Chinese and in English, each in its own language', () => {
    const unworded: string[] = [];
    for (const code of enums.error_code) {
      for (const details of [{}, { requested: 5, available: 2 }]) {
        const zh = ERROR_WORDS['zh-TW'][code]?.(details) ?? '';
        const en = ERROR_WORDS.en[code]?.(details) ?? '';
        if (!/[\u4e00-\u9fff]/.test(zh) || /[A-Za-z]{3,}/.test(zh)) unworded.push(`${code} zh-TW: ${zh}`);
        if (!/^[A-Z][^\u3400-\u9fff]+[.]$/.test(en)) unworded.push(`${code} en: ${en}`);
      }
    }
    expect(unworded).toEqual([]);
    // What a refusal's details say reaches the words: how many units are free.
    expect(ERROR_WORDS['zh-TW'].INSUFFICIENT_STOCK({ requested: 5, available: 2 })).toContain('可用 2 件');
    const clash = { name: '週年慶', start_date: '2026-12-01', end_date: '2026-12-06' };
    expect(ERROR_WORDS['zh-TW'].CAMPAIGN_OVERLAP_CONFLICT({ conflicts_with: clash })).toContain('「週年慶」已在 2026-12-01 至 2026-12-06');
    expect(ERROR_WORDS.en.CAMPAIGN_OVERLAP_CONFLICT({ failures: [{ conflicts_with: clash }] })).toContain('“週年慶” is active');
  });
});
