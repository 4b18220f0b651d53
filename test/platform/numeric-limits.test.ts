// A number's upper limit is the column's type, generated into the database types (`NumericLimits`, `npm run
// types`) and read by zod and the console through `_shared/money.ts`. The console once refused budgets over an
// order's limit while the API took a campaign's, because the form wrote its own.
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Limits, NumericLimits } from '../../supabase/functions/_shared/database.types.ts';
import * as money from '../../supabase/functions/_shared/money.ts';

const consoleSources = new URL('../../console/src/', import.meta.url);
const functionSources = new URL('../../supabase/functions/', import.meta.url);

describe('numeric limits', () => {
  it('are the columns\' own: an order\'s money numeric(12, 2), a budget numeric(14, 2), a weight numeric(3, 2)', () => {
    expect({ ...money }).toEqual({
      MAX_MONEY: NumericLimits.orders.total_amount,
      MAX_BUDGET: NumericLimits.campaigns.budget,
      MAX_WEIGHT: NumericLimits.campaign_type_config.default_weight,
    });
    expect([money.MAX_MONEY, money.MAX_BUDGET, money.MAX_WEIGHT]).toEqual([9_999_999_999.99, 999_999_999_999.99, 9.99]);
  });

  it('bound every decimal field of the console by a generated limit, never a number written in the form', async () => {
    const files = (await readdir(consoleSources, { recursive: true })).filter((file) => file.endsWith('.tsx'));
    const bounds: string[] = [];
    for (const file of files) {
      const source = await readFile(new URL(file, consoleSources), 'utf8');
      for (const call of source.matchAll(/checks\.decimal\(([^()]|\([^()]*\))*\)/g)) bounds.push(call[0].split(',').at(-1)!.replace(')', '').trim());
    }
    expect(bounds.length).toBeGreaterThanOrEqual(5);
    expect(bounds.filter((bound) => !Object.keys(money).includes(bound))).toEqual([]);
  });

  it('bound a stock quantity and a reorder level by the generated stock limit, never a number written in a form or schema', async () => {
    expect(Limits.stock_quantity).toBe(1_000_000_000);
    const written: string[] = [];
    for (const root of [consoleSources, functionSources]) {
      for (const file of await readdir(root, { recursive: true })) {
        if (!/\.tsx?$/.test(file) || file.endsWith('database.types.ts')) continue;
        if (/\b1_?000_?000_?000\b/.test(await readFile(new URL(file, root), 'utf8'))) written.push(file);
      }
    }
    expect(written).toEqual([]);
  });

  it('bound every whole-number field of the console by a generated limit too', async () => {
    const bounds: string[] = [];
    for (const file of (await readdir(consoleSources, { recursive: true })).filter((f) => f.endsWith('.tsx'))) {
      const source = await readFile(new URL(file, consoleSources), 'utf8');
      for (const call of source.matchAll(/checks\.integer\(([^()]|\([^()]*\))*\)/g)) {
        bounds.push(call[0].split(',').at(-1)!.replace(')', '').trim());
      }
    }
    expect(bounds.length).toBeGreaterThanOrEqual(5);
    expect(bounds.filter((bound) => !/^(Limits\.\w+|MAX_[A-Z_]+)$/.test(bound))).toEqual([]);
  });
});
