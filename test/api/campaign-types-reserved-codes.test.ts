// A type code equal to a fixed segment of the campaign-types routes would be ambiguous beside them:
// GET /campaign-types/groups is the groups, never a type named groups.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { admin } from '../support/campaigns.ts';
import { asRole, call, database } from '../support/client.ts';

const sql = database();
const FIXED_SEGMENTS = ['groups', 'health'];

describe('type codes that are route segments', () => {
  it('the reserved codes are every fixed first segment of the campaign-types routes that is a valid type code', () => {
    const index = readFileSync(new URL('../../supabase/functions/campaign-types/routes.ts', import.meta.url), 'utf8');
    const fixed = [...index.matchAll(/path: '\/([^/':{]+)/g)].map((m) => m[1]).filter((s) => /^[a-z][a-z0-9_]*$/.test(s));
    expect([...new Set(fixed)].sort()).toEqual(FIXED_SEGMENTS);
  });

  it.each(FIXED_SEGMENTS)('a type_code equal to the fixed route segment %s is refused on create with 400 and never stored', async (code) => {
    const res = await call('campaign-types', {
      method: 'POST',
      body: { type_code: code, display_name_zh: '保留字', attribution_layer: 'general' },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error_code: 'VALIDATION_ERROR',
      details: { field: 'type_code', value: code, constraint: 'not a fixed route segment (groups, health)' },
    });
    expect(await sql`select 1 from public.campaign_type_config where type_code = ${code}`).toHaveLength(0);
  });

  it('holds for supabase.rpc and direct inserts too', async () => {
    const rpc = await asRole(sql, admin, (tx) =>
      tx`select public.create_campaign_type(${tx.json({ type_code: 'groups', display_name_zh: '保留字', attribution_layer: 'general' })})`);
    expect(rpc.error?.code).toBe('PT400');
    const direct = await asRole(sql, admin, (tx) =>
      tx`insert into public.campaign_type_config (type_code, display_name_zh, attribution_layer) values ('health', '保留字', 'general')`);
    expect(direct.error?.code).toBe('23514');
  });
});
