import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ANON_KEY, call, createUser, database, DEMO_CUSTOMER_ID, mintToken, tokens, unique } from '../support/client.ts';

const sql = database();

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hour = () => Math.floor(Date.now() / 1000) + 3600;

async function expectUnauthorized(token: string | null, why: string) {
  const res = await call('campaign-types', { token: token ?? null });
  expect(res.status, why).toBe(401);
  expect(res.body, why).toMatchObject({ success: false, error_code: 'UNAUTHORIZED', error: expect.any(String) });
}

describe('who may call', () => {
  it('a request without an Authorization header is refused', () => expectUnauthorized(null, 'no header'));

  it('a token signed with another secret is refused', async () => {
    const forged = await mintToken({ role: 'authenticated', sub: DEMO_CUSTOMER_ID, secret: 'not-the-project-secret-but-long-enough-1234' });
    await expectUnauthorized(forged, 'bad signature');
  });

  it('an expired token is refused', async () => {
    const expired = await mintToken({ role: 'authenticated', sub: DEMO_CUSTOMER_ID, expiresIn: Math.floor(Date.now() / 1000) - 60 });
    await expectUnauthorized(expired, 'expired');
  });

  it('an unsigned token (alg: none) is refused', async () => {
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ role: 'service_role', exp: hour() })}.`;
    await expectUnauthorized(unsigned, 'alg none');
  });

  it('a token that swaps HS256 for another algorithm name is refused', async () => {
    const valid = await mintToken({ role: 'service_role' });
    const [, payload, signature] = valid.split('.');
    await expectUnauthorized(`${base64url({ alg: 'HS512', typ: 'JWT' })}.${payload}.${signature}`, 'alg swapped');
  });

  it('a token without an expiry is refused', async () => {
    const forever = await new SignJWT({ role: 'service_role' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('super-secret-jwt-token-with-at-least-32-characters-long'));
    await expectUnauthorized(forever, 'no exp');
  });

  it('a token issued in the future (iat beyond a minute of clock skew) is refused, one within it accepted', async () => {
    const issuedIn = (seconds: number) =>
      new SignJWT({ role: 'authenticated', aud: 'authenticated' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(DEMO_CUSTOMER_ID)
        .setIssuedAt(Math.floor(Date.now() / 1000) + seconds)
        .setExpirationTime(Math.floor(Date.now() / 1000) + seconds + 3600)
        .sign(new TextEncoder().encode('super-secret-jwt-token-with-at-least-32-characters-long'));
    await expectUnauthorized(await issuedIn(3600), 'iat an hour ahead');
    await expectUnauthorized(await issuedIn(120), 'iat two minutes ahead');
    expect((await call('campaign-types', { token: await issuedIn(20) })).status).toBe(200);
  });

  it('a token with a role the platform does not issue is refused', async () => {
    await expectUnauthorized(await mintToken({ role: 'supabase_admin' }), 'unknown role');
  });

  it('a user token whose subject is not a UUID is refused', async () => {
    await expectUnauthorized(await mintToken({ role: 'authenticated', sub: 'admin' }), 'bad sub');
  });

  it.each(['garbage', 'a.b.c', 'Basic dXNlcjpwYXNz'])('a malformed credential (%s) is refused', async (credential) => {
    const res = await call('campaign-types', { headers: { authorization: credential.startsWith('Basic') ? credential : `Bearer ${credential}` } });
    expect(res.status).toBe(401);
    expect(res.body.error_code).toBe('UNAUTHORIZED');
  });

  it('the anon key alone is not a signed-in user', () => expectUnauthorized(ANON_KEY, 'anon key'));

  it('a customer reads but cannot write', async () => {
    expect((await call('campaign-types', { token: tokens.customer })).status).toBe(200);
    const res = await call('campaign-types', {
      method: 'POST',
      token: tokens.customer,
      body: { type_code: unique('x'), display_name_zh: '客', attribution_layer: 'general' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('INSUFFICIENT_PERMISSION');
  });

  it('an admin and the service key both read and write', async () => {
    for (const token of [tokens.admin, tokens.service]) {
      expect((await call('campaign-types', { token })).status).toBe(200);
      const res = await call('campaign-types', {
        method: 'POST',
        token,
        body: { type_code: unique('w'), display_name_zh: '寫', attribution_layer: 'general' },
      });
      expect(res.status).toBe(201);
    }
  });

  it("revoking an admin's row takes effect on their next request", async () => {
    const user = await createUser(sql, { admin: true });
    const create = () =>
      call('campaign-types', {
        method: 'POST',
        token: user.token,
        body: { type_code: unique('r'), display_name_zh: '撤', attribution_layer: 'general' },
      });
    expect((await create()).status).toBe(201);
    await sql`delete from public.user_roles where user_id = ${user.id}`;
    const after = await create();
    expect(after.status).toBe(403);
    expect(after.body.error_code).toBe('INSUFFICIENT_PERMISSION');
  });
});
