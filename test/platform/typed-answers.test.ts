// A handler answers `c.json(body, status)` (or `ok(c, data)`), typed by its route's `responses`: an answer
// whose shape its route does not declare is a type error, so `npm run check` refuses it before any test runs.
// Here a copy of the store function answers `today` as a number where its route declares a day.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCopied } from '../support/deno-check.ts';

describe('typed answers', () => {
  it('a handler whose answer breaks its route\'s declared shape does not type-check', async () => {
    const failed = await checkCopied(['store'], async (functions) => {
      const handlers = path.join(functions, 'store', 'handlers.ts');
      const source = await readFile(handlers, 'utf8');
      expect(source).toContain('return ok(c, settings);');
      await writeFile(handlers, source.replace('return ok(c, settings);', 'return ok(c, { ...settings, today: 1 });'));
    });
    expect(failed, 'the wrong answer type-checked').not.toBe('');
    expect(failed).toMatch(/today/);
  });
});
