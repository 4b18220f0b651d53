/**
 * What the local server offers the store console, no browser needed: the built files at /console/
 * (gzipped when asked, nothing outside console/dist), a config.json naming this server, and the
 * local-only sign-in whose tokens the functions accept with the demo users' rights.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';
import { ANON_KEY, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID } from '../../scripts/lib/keys.mjs';

const api = inject('apiUrl');

async function signIn(as: unknown) {
  return fetch(`${api}/local/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ as }) });
}

describe('the local server and the store console', () => {
  it('serves the built console at /console/, and /console redirects there', async () => {
    const page = await fetch(`${api}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<div id="app">');
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)![1];
    const asset = await fetch(`${api}/console/${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const redirect = await fetch(`${api}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe(`${api}/console/`);
  });

  it('gzips what it sends when the client accepts it', async () => {
    const { request } = await import('node:http');
    const body = await new Promise<{ encoding?: string; bytes: Buffer }>((resolve, reject) => {
      request(`${api}/console/`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
      }).on('error', reject).end();
    });
    expect(body.encoding).toBe('gzip');
    expect(gunzipSync(body.bytes).toString()).toContain('<div id="app">');
  });

  it('serves nothing outside console/dist', async () => {
    for (const path of ['/console/..%2Fpackage.json', '/console/%2e%2e/package.json', '/console/assets/../../package.json', '/console/missing.js']) {
      const res = await fetch(`${api}${path}`);
      expect(res.status, path).not.toBe(200);
      expect(await res.text()).not.toContain('"devDependencies"');
    }
    expect((await fetch(`${api}/console/`, { method: 'POST' })).status).toBe(405);
  });

  it('answers config.json with this server and the local anon key, local sign-in on, and no Realtime', async () => {
    const res = await fetch(`${api}/console/config.json`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ supabaseUrl: api, anonKey: ANON_KEY, localSignIn: true, currency: 'TWD', realtime: false });
  });

  it('signs in as the demo admin or customer with tokens the functions accept, with their rights', async () => {
    const admin = await (await signIn('admin')).json();
    expect(admin).toMatchObject({ token_type: 'bearer', user: { id: DEMO_ADMIN_ID, email: 'admin@example.com', role: 'admin' } });
    expect(admin.expires_at).toBeGreaterThan(Date.now() / 1000 + 3600);
    const customer = await (await signIn('customer')).json();
    expect(customer.user).toEqual({ id: DEMO_CUSTOMER_ID, email: 'customer@example.com', role: 'customer' });

    const stats = await fetch(`${api}/functions/v1/campaigns/stats`, { headers: { authorization: `Bearer ${customer.access_token}` } });
    expect(stats.status).toBe(200);
    const deactivate = (token: string) =>
      fetch(`${api}/functions/v1/campaign-types/no_such_type_${Date.now()}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect((await deactivate(customer.access_token)).status).toBe(403);
    expect((await deactivate(admin.access_token)).status).toBe(404);
  });

  it('refuses a sign-in as anyone else, or by GET', async () => {
    for (const as of ['service', 'anon', '', null, { role: 'admin' }]) {
      const res = await signIn(as);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(/"as": "admin"/);
    }
    expect((await fetch(`${api}/local/sign-in`)).status).toBe(405);
  });
});
