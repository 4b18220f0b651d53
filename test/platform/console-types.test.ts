/**
 * The console type-checks against the API's checked-in types (console/src/api/openapi.gen.ts, which
 * test/platform/openapi.test.ts holds to docs/openapi.json): an API change that breaks a screen fails here.
 */
import { describe, expect, it } from 'vitest';
import { typeCheck } from '../../console/build.mjs';

describe('the store console', () => {
  it('type-checks against the API as documented', async () => {
    await expect(typeCheck()).resolves.toBeUndefined();
  }, 120_000);
});
