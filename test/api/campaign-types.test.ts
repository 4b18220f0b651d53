import { beforeAll, describe, expect, it } from 'vitest';
import { type CatalogueEntry, catalogueHealth } from '../../supabase/functions/campaign-types/health.ts';
import { call, database, tokens, unique } from '../support/client.ts';

const sql = database();
const LAYERS = ['site-wide', 'target-oriented', 'category-specific', 'general'];

async function createType(overrides: Record<string, unknown> = {}, token = tokens.admin) {
  const type_code = unique('t');
  return call('campaign-types', {
    method: 'POST',
    token,
    body: { type_code, display_name_zh: '測試活動', attribution_layer: 'general', ...overrides },
  });
}

describe('listing the catalogue', () => {
  it('lists active types in layer precedence, then priority (highest first), then type_code', async () => {
    const res = await call('campaign-types?per_page=200');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const data: any[] = res.body.data;
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((t) => t.is_active)).toBe(true);
    const key = (t: any) => [LAYERS.indexOf(t.attribution_layer), -t.default_priority, t.type_code] as const;
    for (let i = 1; i < data.length; i++) {
      const [a, b] = [key(data[i - 1]), key(data[i])];
      const ordered = a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])));
      expect(ordered, `${data[i - 1].type_code} before ${data[i].type_code}`).toBe(true);
    }
    expect(res.body.count).toBe(data.length);
  });

  it('leaves inactive types out unless includeInactive is true', async () => {
    const created = await createType({ is_active: false });
    const code = created.body.data.type_code;
    const active = await call('campaign-types?per_page=200');
    expect(active.body.data.map((t: any) => t.type_code)).not.toContain(code);
    const all = await call('campaign-types?includeInactive=true&per_page=200');
    expect(all.body.data.map((t: any) => t.type_code)).toContain(code);
  });

  it('pages with page and per_page and reports the totals', async () => {
    const [{ count }] = await sql`select count(*)::int from public.campaign_type_config where is_active`;
    const res = await call('campaign-types?page=2&per_page=3');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({
      page: 2,
      per_page: 3,
      total_count: count,
      total_pages: Math.ceil(count / 3),
    });
    expect(res.body.count).toBe(res.body.data.length);
    expect(res.body.data.length).toBe(Math.min(3, Math.max(0, count - 3)));
    const past = await call('campaign-types?page=1000&per_page=3');
    expect(past.body).toMatchObject({ data: [], count: 0, pagination: { total_count: count } });
  });

  it('sorts by a chosen column and order', async () => {
    const res = await call('campaign-types?sort_by=default_weight&sort_order=desc&per_page=200');
    const weights = res.body.data.map((t: any) => t.default_weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
  });

  it.each([
    ['per_page=201', 'per_page'],
    ['per_page=0', 'per_page'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['includeInactive=yes', 'includeInactive'],
    ['sort_by=password', 'sort_by'],
    ['sort_by=type_code&sort_order=up', 'sort_order'],
    ['sort_order=desc', 'sort_order'],
    ['colour=red', 'colour'],
  ])('refuses the query %s with a 400 naming %s', async (query, field) => {
    const res = await call(`campaign-types?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR', details: { field } });
  });
});

describe('grouping by layer', () => {
  it('returns all four layers, with active types only and their counts', async () => {
    const inactive = await createType({ attribution_layer: 'site-wide', is_active: false });
    const res = await call('campaign-types/groups');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(LAYERS);
    for (const layer of LAYERS) {
      const group = res.body.data[layer];
      expect(group.layer).toBe(layer);
      expect(group.display_name).toEqual(expect.any(String));
      expect(group.description).toEqual(expect.any(String));
      expect(group.total_count).toBe(group.types.length);
      expect(group.types.every((t: any) => t.is_active && t.attribution_layer === layer)).toBe(true);
    }
    const codes = LAYERS.flatMap((layer) => res.body.data[layer].types.map((t: any) => t.type_code));
    expect(codes).not.toContain(inactive.body.data.type_code);
  });
});

describe('the health summary', () => {
  it('summarises the catalogue exactly as the database holds it, every layer included', async () => {
    const snapshot = () =>
      sql<CatalogueEntry[]>`select type_code, attribution_layer::text as attribution_layer, default_weight, is_active
                            from public.campaign_type_config order by type_code`;
    // Other test files add types concurrently: compare against a catalogue that held still around the call.
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await snapshot();
      const res = await call('campaign-types/health', { token: tokens.customer });
      const after = await snapshot();
      if (JSON.stringify(before) !== JSON.stringify(after)) continue;
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data.layers_coverage)).toEqual(LAYERS);
      expect(res.body.data).toEqual(catalogueHealth(before));
      expect(res.body.data.active_types).toBe(before.filter((t) => t.is_active).length);
      return;
    }
    throw new Error('the catalogue never held still for five attempts');
  });

  it("words its recommendations in the caller's language: the seeds' Chinese by default, English when asked", async () => {
    // An inactive type, so there is a recommendation to word.
    await call(`campaign-types/${(await createType({})).body.data.type_code}`, { method: 'DELETE' });
    const zh = await call('campaign-types/health', { token: tokens.customer });
    const en = await call('campaign-types/health', { token: tokens.customer, headers: { 'accept-language': 'en-US' } });
    expect(zh.headers.get('content-language')).toBe('zh-TW');
    expect(en.headers.get('content-language')).toBe('en');
    // Type codes are the catalogue's own data, in either language; the words around them are not.
    const words = (recommendations: string[]) => recommendations.join(' ').replace(/[a-z0-9_]*_[a-z0-9_]*/g, '');
    expect(zh.body.data.recommendations.join(' ')).toMatch(/個類型中有 \d+ 個已停用/);
    expect(words(zh.body.data.recommendations)).not.toMatch(/[A-Za-z]{3}/);
    expect(en.body.data.recommendations.join(' ')).toMatch(/ types? (is|are) inactive/);
    expect(words(en.body.data.recommendations)).not.toMatch(/[\u4e00-\u9fff]/);
  });
});

describe('creating a type', () => {
  it('stores it with the contract defaults and answers 201 with JSON numbers', async () => {
    const res = await createType({ display_name_en: 'Test' });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ default_weight: 1, default_priority: 50, is_active: true, display_name_en: 'Test' });
    expect(res.text).toContain('"default_weight":1,');
    expect(new Date(data.created_at).toISOString()).toBe(data.created_at);
    expect(data.updated_at).toBe(data.created_at);
    const [row] = await sql`select default_weight, default_priority, is_active from public.campaign_type_config
                            where type_code = ${data.type_code}`;
    expect(row).toEqual({ default_weight: 1, default_priority: 50, is_active: true });
  });

  it('keeps two-decimal weights exact, e.g. 1.5 stays the number 1.5', async () => {
    const res = await createType({ default_weight: 1.5, default_priority: 70 });
    expect(res.status).toBe(201);
    expect(res.text).toContain('"default_weight":1.5,');
  });

  it.each([
    ['default_weight', 0],
    ['default_weight', 9.99],
    ['default_priority', 0],
    ['default_priority', 100],
  ])('accepts the boundary %s = %s', async (field, value) => {
    const res = await createType({ [field]: value });
    expect(res.status).toBe(201);
    expect(res.body.data[field]).toBe(value);
  });

  it('accepts a type_code of exactly 50 characters', async () => {
    const type_code = unique('a').padEnd(50, 'z');
    const res = await createType({ type_code });
    expect(res.status).toBe(201);
    expect(res.body.data.type_code).toBe(type_code);
  });

  it('refuses a duplicate type_code with 409 and the existing record', async () => {
    const first = await createType({ attribution_layer: 'target-oriented', display_name_zh: '原本的' });
    const again = await createType({ type_code: first.body.data.type_code, attribution_layer: 'general' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      success: false,
      error: expect.any(String),
      error_code: 'DUPLICATE_TYPE_CODE',
      details: {
        type_code: first.body.data.type_code,
        existing_config: { display_name_zh: '原本的', attribution_layer: 'target-oriented' },
      },
    });
  });

  it('refuses an unknown attribution layer with INVALID_ATTRIBUTION_LAYER', async () => {
    const res = await createType({ attribution_layer: 'galaxy-wide' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error_code: 'INVALID_ATTRIBUTION_LAYER',
      details: { provided_layer: 'galaxy-wide', valid_layers: LAYERS },
    });
  });

  it.each([10, -0.01, 9.991, 100])('refuses the weight %s with INVALID_WEIGHT_RANGE', async (weight) => {
    const res = await createType({ default_weight: weight });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error_code: 'INVALID_WEIGHT_RANGE',
      details: { provided_weight: weight, valid_range: '0.00-9.99' },
    });
  });

  it.each([
    [{ default_weight: 1.234 }, 'default_weight'],
    [{ default_weight: '1.5' }, 'default_weight'],
    [{ default_priority: 101 }, 'default_priority'],
    [{ default_priority: -1 }, 'default_priority'],
    [{ default_priority: 1.5 }, 'default_priority'],
    [{ type_code: 'Bad-Code' }, 'type_code'],
    [{ type_code: '1abc' }, 'type_code'],
    [{ type_code: `a${'b'.repeat(50)}` }, 'type_code'],
    [{ display_name_zh: '' }, 'display_name_zh'],
    [{ display_name_zh: undefined }, 'display_name_zh'],
    [{ attribution_layer: undefined }, 'attribution_layer'],
    [{ attribution_layer: 3 }, 'attribution_layer'],
    [{ is_active: 'true' }, 'is_active'],
    [{ description: 'x'.repeat(1001) }, 'description'],
    [{ owner: 'me' }, 'owner'],
  ])('refuses %j with VALIDATION_ERROR naming %s, and writes nothing', async (overrides, field) => {
    const res = await createType(overrides);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR', details: { field } });
  });

  it('refuses a request without a body', async () => {
    const res = await call('campaign-types', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('VALIDATION_ERROR');
  });

  it('a customer cannot create a campaign type', async () => {
    const type_code = unique('c');
    const res = await createType({ type_code }, tokens.customer);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, error_code: 'INSUFFICIENT_PERMISSION' });
    expect(await sql`select 1 from public.campaign_type_config where type_code = ${type_code}`).toHaveLength(0);
  });

  it('the service key may create a campaign type', async () => {
    const res = await createType({}, tokens.service);
    expect(res.status).toBe(201);
  });
});

describe('updating a type', () => {
  let code: string;
  beforeAll(async () => {
    code = (await createType({ display_name_en: 'Before', default_weight: 2 })).body.data.type_code;
  });

  it('changes only the fields sent, and the database moves updated_at', async () => {
    const [before] = await sql`select updated_at from public.campaign_type_config where type_code = ${code}`;
    const res = await call(`campaign-types/${code}`, {
      method: 'PUT',
      body: { default_priority: 77, display_name_en: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      type_code: code,
      default_priority: 77,
      default_weight: 2,
      display_name_en: null,
    });
    expect(new Date(res.body.data.updated_at).getTime()).toBeGreaterThan(before.updated_at.getTime());
  });

  it('deactivates and reactivates through is_active', async () => {
    expect((await call(`campaign-types/${code}`, { method: 'PUT', body: { is_active: false } })).body.data.is_active)
      .toBe(false);
    expect((await call(`campaign-types/${code}`, { method: 'PUT', body: { is_active: true } })).body.data.is_active)
      .toBe(true);
  });

  it('refuses to change type_code', async () => {
    const res = await call(`campaign-types/${code}`, {
      method: 'PUT',
      body: { type_code: 'other', default_priority: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'VALIDATION_ERROR', details: { field: 'type_code' } });
    const [row] = await sql`select default_priority from public.campaign_type_config where type_code = ${code}`;
    expect(row.default_priority).not.toBe(1);
  });

  it('refuses an empty change', async () => {
    const res = await call(`campaign-types/${code}`, { method: 'PUT', body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('VALIDATION_ERROR');
  });

  it('applies the seed errors to updates too', async () => {
    const layer = await call(`campaign-types/${code}`, { method: 'PUT', body: { attribution_layer: 'nowhere' } });
    expect(layer.status).toBe(400);
    expect(layer.body.error_code).toBe('INVALID_ATTRIBUTION_LAYER');
    const weight = await call(`campaign-types/${code}`, { method: 'PUT', body: { default_weight: 12 } });
    expect(weight.status).toBe(400);
    expect(weight.body.error_code).toBe('INVALID_WEIGHT_RANGE');
  });

  it('answers 404 TYPE_NOT_FOUND for an unknown type', async () => {
    const res = await call(`campaign-types/${unique('missing')}`, { method: 'PUT', body: { default_priority: 1 } });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error_code: 'TYPE_NOT_FOUND' });
  });

  it('a customer cannot change a campaign type', async () => {
    const res = await call(`campaign-types/${code}`, {
      method: 'PUT',
      token: tokens.customer,
      body: { default_priority: 3 },
    });
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('INSUFFICIENT_PERMISSION');
    const [row] = await sql`select default_priority from public.campaign_type_config where type_code = ${code}`;
    expect(row.default_priority).not.toBe(3);
  });
});

describe('deleting a type', () => {
  it('deactivates it, keeps the record, and is idempotent', async () => {
    const code = (await createType()).body.data.type_code;
    const first = await call(`campaign-types/${code}`, { method: 'DELETE' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, message: expect.stringContaining(code) });
    const [row] = await sql`select is_active from public.campaign_type_config where type_code = ${code}`;
    expect(row.is_active).toBe(false);
    const again = await call(`campaign-types/${code}`, { method: 'DELETE' });
    expect(again.status).toBe(200);
  });

  it('answers 404 TYPE_NOT_FOUND for an unknown type', async () => {
    const res = await call(`campaign-types/${unique('missing')}`, { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(res.body.error_code).toBe('TYPE_NOT_FOUND');
  });

  it('a customer cannot delete a campaign type', async () => {
    const code = (await createType()).body.data.type_code;
    const res = await call(`campaign-types/${code}`, { method: 'DELETE', token: tokens.customer });
    expect(res.status).toBe(403);
    const [row] = await sql`select is_active from public.campaign_type_config where type_code = ${code}`;
    expect(row.is_active).toBe(true);
  });
});

describe('validating a type code', () => {
  it('reports an active type valid, with its record', async () => {
    const code = (await createType()).body.data.type_code;
    const res = await call(`campaign-types/${code}/validate`, { method: 'POST', token: tokens.customer });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      is_valid: true,
      type_config: { type_code: code },
      validation_message: expect.any(String),
    });
  });

  it('reports an inactive type invalid, with its record', async () => {
    const code = (await createType({ is_active: false })).body.data.type_code;
    const res = await call(`campaign-types/${code}/validate`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ is_valid: false, type_config: { type_code: code, is_active: false } });
  });

  it.each([unique('unknown'), 'Not-A-Code', 'x'.repeat(51)])('reports %s invalid, without a record', async (code) => {
    const res = await call(`campaign-types/${code}/validate`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body.data.is_valid).toBe(false);
    expect(res.body.data.validation_message).toEqual(expect.any(String));
    expect(res.body.data).not.toHaveProperty('type_config');
  });
});

describe('versioning', () => {
  it('marks every response API-Version 1.0.0, errors included', async () => {
    expect((await call('campaign-types')).headers.get('api-version')).toBe('1.0.0');
    expect((await call('campaign-types', { token: null })).headers.get('api-version')).toBe('1.0.0');
  });

  it('serves version 1.0 when asked through Accept or the /api/v1 prefix', async () => {
    const accept = await call('campaign-types', { headers: { accept: 'application/vnd.api+json;version=1.0' } });
    expect(accept.status).toBe(200);
    const prefixed = await call('/api/v1/campaign-types/groups');
    expect(prefixed.status).toBe(200);
  });

  it('refuses an unknown version with 406 UNSUPPORTED_VERSION', async () => {
    const res = await call('campaign-types', { headers: { accept: 'application/vnd.api+json;version=2.0' } });
    expect(res.status).toBe(406);
    expect(res.body).toMatchObject({ success: false, error_code: 'UNSUPPORTED_VERSION' });
  });
});
