import { describe, expect, it } from 'vitest';
import { advisorFindings, describeFinding } from '../../scripts/lib/advisors.mjs';
import { dbUrl } from '../support/client.ts';

describe('supabase db advisors', () => {
  it('find no security or performance problem in the project schema', async () => {
    const findings = await advisorFindings(dbUrl);
    expect(findings.map(describeFinding)).toEqual([]);
  });
});
