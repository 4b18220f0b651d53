/** The README's commands, run as printed. */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { JWT_SECRET } from '../../scripts/lib/keys.mjs';
import { freePort, ROOT, startFunctions } from '../../scripts/lib/stack.mjs';
import { ANON_KEY, apiUrl, call, DEMO_ADMIN_ID, dbUrl, mintToken, tokens } from '../support/client.ts';

const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe('README', () => {
  it('the supabase-js example runs as printed and reads the catalogue groups', async () => {
    const snippet = /```js\n(\/\/ groups\.mjs[\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet, 'the README has the groups.mjs example').toBeDefined();
    expect(readme).toContain('node --experimental-websocket groups.mjs');
    // The URL is named where the reader runs it, not guessed inside the snippet.
    expect(readme).toMatch(/^SUPABASE_URL=http:\/\/127\.0\.0\.1:54321 SUPABASE_ANON_KEY=<anon key> /m);
    expect(snippet).not.toMatch(/54321/);
    // Inside the project, so `@supabase/supabase-js` resolves from its node_modules as for a reader.
    await mkdir(path.join(ROOT, '.data'), { recursive: true });
    const dir = await mkdtemp(path.join(ROOT, '.data', 'readme-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, 'groups.mjs'), snippet!);
    // Node 20 needs the flag the README prints; later versions have WebSocket built in.
    const flags = Number(process.versions.node.split('.')[0]) < 22 ? ['--experimental-websocket'] : [];
    const { stdout } = await promisify(execFile)(process.execPath, [...flags, 'groups.mjs'], {
      cwd: dir,
      env: { ...process.env, SUPABASE_URL: apiUrl, SUPABASE_ANON_KEY: ANON_KEY, USER_TOKEN: tokens.customer },
    });
    expect(Object.keys(JSON.parse(stdout))).toEqual(['site-wide', 'target-oriented', 'category-specific', 'general']);
  });

  it('hosted, a legacy-secret project sets JWT_SECRET (SUPABASE_* names cannot be set): the functions verify with it', async () => {
    expect(readme).toContain('secrets set JWT_SECRET=');
    const functions = await startFunctions({
      dbUrl,
      port: await freePort(),
      env: { SUPABASE_JWT_SECRET: '', JWT_SECRET, SUPABASE_URL: '', SUPABASE_JWKS_URL: '' },
    });
    cleanups.push(() => functions.stop());
    const signed = await mintToken({ role: 'authenticated', sub: DEMO_ADMIN_ID });
    const ok = await fetch(`${functions.url}/functions/v1/campaign-types/groups`, { headers: { authorization: `Bearer ${signed}` } });
    expect(ok.status).toBe(200);
    const forged = await fetch(`${functions.url}/functions/v1/campaign-types/groups`, {
      headers: { authorization: `Bearer ${signed.slice(0, -4)}AAAA` },
    });
    expect(forged.status).toBe(401);
    expect((await call('campaign-types/groups')).status).toBe(200);
  });
});
