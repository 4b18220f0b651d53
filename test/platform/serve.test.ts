import { describe, expect, it } from 'vitest';
import { call, tokens } from '../support/client.ts';

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
