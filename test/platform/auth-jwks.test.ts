// Hosted projects sign user tokens with asymmetric keys published as a JWKS. The authenticator fetches
// that set over HTTP, as it does from `<project>/auth/v1/.well-known/jwks.json`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../supabase/functions/_shared/auth.ts';
import { ApiError, catalogueArea } from '../../supabase/functions/_shared/errors.ts';

const USER = '00000000-0000-4000-8000-0000000000aa';
let server: Server;
let jwksUrl: string;
let projectKey: CryptoKey;
let strangerKey: CryptoKey;

beforeAll(async () => {
  const project = await generateKeyPair('ES256', { extractable: true });
  projectKey = project.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  const jwk = { ...(await exportJWK(project.publicKey)), kid: 'project-key', alg: 'ES256', use: 'sig' };
  server = createServer((_, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/v1/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const sign = (key: CryptoKey, expiresIn: string | number = '1h') =>
  new SignJWT({ role: 'authenticated' })
    .setProtectedHeader({ alg: 'ES256', kid: 'project-key' })
    .setSubject(USER)
    .setExpirationTime(expiresIn)
    .sign(key);

const request = (token: string) => new Request('http://localhost/campaign-types', { headers: { authorization: `Bearer ${token}` } });

describe('tokens signed with the project JWKS', () => {
  it('a user token signed by the project key is accepted', async () => {
    const auth = createAuthenticator({ jwksUrl });
    const caller = await auth.authenticate(request(await sign(projectKey)), 'user', catalogueArea);
    expect(caller).toMatchObject({ kind: 'user', userId: USER });
  });

  it.each([
    ['signed by another key', () => sign(strangerKey)],
    ['expired', () => sign(projectKey, Math.floor(Date.now() / 1000) - 60)],
  ])('a token %s is refused with 401', async (_, token) => {
    const auth = createAuthenticator({ jwksUrl });
    const error = await auth.authenticate(request(await token()), 'user', catalogueArea).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(401);
  });

  it('an HS256 token is refused when the project has no shared secret configured', async () => {
    const hs = await new SignJWT({ role: 'service_role' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('super-secret-jwt-token-with-at-least-32-characters-long'));
    const error = await createAuthenticator({ jwksUrl }).authenticate(request(hs), 'user', catalogueArea).catch((e) => e);
    expect(error.status).toBe(401);
  });
});
