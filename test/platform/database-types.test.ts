/** The checked-in database types are what `npm run types` generates from the schema under test. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateTypes, TYPES_FILE } from '../../scripts/types.mjs';
import { dbUrl } from '../support/client.ts';

describe('supabase/functions/_shared/database.types.ts', () => {
  it('is fresh: the schema has not changed since npm run types', async () => {
    const checkedIn = await readFile(TYPES_FILE, 'utf8');
    expect(checkedIn, 'run `npm run types` and commit the result').toBe(await generateTypes(dbUrl));
    expect(checkedIn).toContain("'campaign_type_config': {");
  });
});
