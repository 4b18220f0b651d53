/**
 * The schema reads in one sitting: `supabase/schemas/` is the one current definition of every object, so
 * its pieces are kept to what a person reads at once. A file past 600 lines is split by what it holds; a
 * function past 80 lines of its own code (scripts/lib/function-lengths.mjs, which measures the edge functions'
 * TypeScript too) is two functions. A function's attributes stand on one line before its body
 * (`language plpgsql stable security definer set search_path = '' as $$`), so what it may do is read at a
 * glance and a hundred headers do not repeat the same five lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INLINED as ADVISORS_INLINED } from '../../scripts/lib/advisors.mjs';
import { functionLengths, sqlFunctionsIn } from '../../scripts/lib/function-lengths.mjs';
import { ROOT } from '../../scripts/lib/stack.mjs';

const DATA_TABLES = new Set(['private.health_insight_rules']);

const SCHEMAS = path.join(ROOT, 'supabase', 'schemas');
const files = (readdirSync(SCHEMAS, { recursive: true }) as string[]).filter((f) => f.endsWith('.sql')).sort();

/** Each `create ... function` of `text`: its header and its length in lines, up to the line that closes its body. */
function functionsOf(text: string): { name: string; header: string[]; lines: number }[] {
  return sqlFunctionsIn(text).map(({ name, header, total }) => ({ name, header, lines: total }));
}

/**
 * The functions that go without `set search_path` (every name in them qualified) so that PostgreSQL inlines them
 * (the clock, the store's day, the order version, the product field rules: scripts/lib/advisors.mjs says why),
 * as the advisors accept them.
 */
const INLINED = new Set([...ADVISORS_INLINED].map((name) => `private.${name}`));

const ATTRIBUTE = /^(language \w+|stable|immutable|volatile|security (definer|invoker)|parallel \w+|strict|set \w+ = .+)$/;

describe('the schema in pieces a person reads at once', () => {
  it('finds the schema files and their functions', () => {
    expect(files.length).toBeGreaterThan(10);
    const all = files.flatMap((f) => functionsOf(readFileSync(path.join(SCHEMAS, f), 'utf8')));
    expect(all.length).toBeGreaterThan(100);
    expect(all.every((f) => f.lines > 3)).toBe(true);
  });

  it('has no schema file over 600 lines', () => {
    const long = files
      .map((f) => ({ file: f, lines: readFileSync(path.join(SCHEMAS, f), 'utf8').split('\n').length }))
      .filter((f) => f.lines > 600);
    expect(long).toEqual([]);
  });

  it('has no function over 150 lines', () => {
    const long = files.flatMap((f) =>
      functionsOf(readFileSync(path.join(SCHEMAS, f), 'utf8')).filter((fn) => fn.lines > 150).map((fn) => ({ file: f, ...fn }))
    );
    expect(long).toEqual([]);
  });

  // A data table is a list of rows written out (the insights' rules, each with its words in both languages):
  // longer is more rows, not more logic.
  it('has no function, SQL or TypeScript, of more than 80 lines of its own code but the data tables', () => {
    const all = functionLengths();
    expect(all.length).toBeGreaterThan(300);
    const long = all.filter((f) => f.lines > 80 && !DATA_TABLES.has(f.name)).map((f) => `${f.file}:${f.at} ${f.name}`);
    expect(long).toEqual([]);
  });

  it("writes each function's attributes on one line, search_path pinned there", () => {
    const headers = files.flatMap((f) => functionsOf(readFileSync(path.join(SCHEMAS, f), 'utf8')).map((h) => ({ file: f, ...h })));
    expect(headers.length).toBeGreaterThan(100);
    const scattered = headers
      .filter(({ name, header }) => {
        const last = header[header.length - 1];
        const pinned = INLINED.has(name) ? /^language sql( stable| immutable)?( parallel safe)? as \$\$$/ : /^language \w+ .*set search_path = '' .*as \$\$$/;
        return !pinned.test(last) ||
          header.slice(0, -1).some((line) => ATTRIBUTE.test(line.trim()));
      })
      .map(({ file, name }) => `${file}: ${name}`);
    expect(scattered).toEqual([]);
  });

  it('reads the time only through private.now() and private.clock_timestamp(), so a run at a chosen moment moves all of it', () => {
    const direct = files.flatMap((f) =>
      readFileSync(path.join(SCHEMAS, f), 'utf8').split('\n').flatMap((line, i) => {
        const code = line.split('--')[0];
        return /(?<![\w.])(now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday)\(\)|\b(current_date|current_timestamp|current_time|localtimestamp|localtime)\b/i
            .test(code)
          ? [`${f}:${i + 1}: ${line.trim()}`]
          : [];
      })
    );
    expect(direct).toEqual([]);
  });

  it("makes a day of an instant only through private.store_day, so every day is the store's", () => {
    const days = files.flatMap((f) =>
      readFileSync(path.join(SCHEMAS, f), 'utf8').split('\n').flatMap((line, i) => {
        const code = line.split('--')[0];
        return /at time zone[^;]*\)\s*::\s*date|::\s*date\b.*at time zone|date_trunc\('day'|\bdate\((?!pg_catalog\.timezone\(private\.store_time_zone)/i.test(code)
          ? [`${f}:${i + 1}: ${line.trim()}`]
          : [];
      })
    );
    expect(days).toEqual([]);
  });
});
