// A handler answers `c.json(body, status)` (or `ok(c, data)`), typed by its route's `responses`: an answer
// whose shape its route does not declare is a type error, so `npm run check` refuses it before any test runs.
// Here a copy of the store function answers `today` as a number where its route declares a day.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';

const FUNCTIONS = path.join(ROOT, 'supabase', 'functions');
const DENO = path.join(ROOT, 'node_modules', '.bin', 'deno');

describe('typed answers', () => {
  it('a handler whose answer breaks its route\'s declared shape does not type-check', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'typed-answers-'));
    try {
      for (const folder of ['store', '_shared']) {
        await cp(path.join(FUNCTIONS, folder), path.join(dir, 'supabase', 'functions', folder), { recursive: true });
      }
      await cp(path.join(ROOT, 'deno.json'), path.join(dir, 'deno.json'));
      await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
      const handlers = path.join(dir, 'supabase', 'functions', 'store', 'handlers.ts');
      const source = await readFile(handlers, 'utf8');
      expect(source).toContain('return ok(c, settings);');
      await writeFile(handlers, source.replace('return ok(c, settings);', 'return ok(c, { ...settings, today: 1 });'));
      const check = promisify(execFile)(DENO, ['check', '--quiet', 'supabase/functions/store/index.ts'], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
      });
      const failed = await check.then(() => undefined, (error: { stderr?: string }) => error.stderr ?? String(error));
      expect(failed, 'the wrong answer type-checked').toBeDefined();
      expect(failed).toMatch(/today/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
