/** The verified-token cache never outlives a token: a token accepted once is refused once it expires. */
import { describe, expect, it } from 'vitest';
import { call, DEMO_ADMIN_ID, mintToken } from '../support/client.ts';

describe('verified tokens, remembered', () => {
  it('a token accepted (and so remembered) is refused as soon as it expires', async () => {
    const token = await mintToken({ role: 'authenticated', sub: DEMO_ADMIN_ID, expiresIn: '2s' });
    expect((await call('campaign-types/groups', { token })).status).toBe(200);
    expect((await call('campaign-types/groups', { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const expired = await call('campaign-types/groups', { token });
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ success: false, error_code: 'UNAUTHORIZED' });
  });

  it('a token whose signature was refused is refused again, not remembered', async () => {
    const token = await mintToken({ role: 'authenticated', sub: DEMO_ADMIN_ID, secret: 'x'.repeat(40) });
    expect((await call('campaign-types/groups', { token })).status).toBe(401);
    expect((await call('campaign-types/groups', { token })).status).toBe(401);
  });
});
