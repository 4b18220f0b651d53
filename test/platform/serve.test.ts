import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { call, dbUrl, tokens } from '../support/client.ts';

describe('the local functions server', () => {
  it('serves a function under /functions/v1 and the /api aliases alike', async () => {
    for (const path of ['/functions/v1/campaign-types', '/api/campaign-types', '/api/v1/campaign-types']) {
      const res = await call(path, { token: tokens.customer });
      expect(res.status, path).toBe(200);
      expect(res.body.success).toBe(true);
    }
  });

  it('answers an unknown function with a JSON 404', async () => {
    const res = await call('/functions/v1/no-such-function');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });
});

describe('the local functions server with a CORS allow-list', () => {
  let functions: Awaited<ReturnType<typeof startFunctions>>;
  beforeAll(async () => {
    functions = await startFunctions({
      dbUrl,
      port: await freePort(),
      env: { CORS_ALLOWED_ORIGINS: 'https://shop.example' },
    });
  });
  afterAll(() => functions?.stop());

  it('its own 404 grants no other origin, as the functions do: the allow-list holds everywhere', async () => {
    const from = (origin: string) => fetch(`${functions.url}/functions/v1/no-such-function`, { headers: { origin } });
    const foreign = await from('https://evil.example');
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('vary')).toBe('Origin');
    const listed = await from('https://shop.example');
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });
});

describe('stopping the local functions server', () => {
  it('two stop signals at once: it exits 0, nothing uncaught, and leaves no socket folder behind', async () => {
    // A temporary folder of its own, so what it leaves there is its alone (under the one it may write to).
    const temp = await mkdtemp(path.join(tmpdir(), 'store-stop-'));
    try {
      const functions = await startFunctions({ dbUrl, port: await freePort(), env: { TMPDIR: temp } });
      expect(await readdir(temp)).toHaveLength(1);
      process.kill(functions.pid!, 'SIGTERM');
      process.kill(functions.pid!, 'SIGINT');
      expect(await functions.exited).toEqual({ code: 0, signal: null });
      expect(functions.output()).not.toMatch(/uncaught|error/i);
      expect(await readdir(temp)).toEqual([]);
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  });
});
