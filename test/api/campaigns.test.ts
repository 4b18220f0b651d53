// The campaigns endpoints over real HTTP: every route, every error code and status, who may do what.
import { describe, expect, it } from 'vitest';
import { addDays, campaignIn, createCampaign, freshDay } from '../support/campaigns.ts';
import { ANON_KEY, call, database, mintToken, tokens, unique } from '../support/client.ts';

const sql = database();

function expectError(res: { status: number; body: any; text: string }, status: number, code: string, field?: string | null) {
  expect(res.status, res.text).toBe(status);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toEqual({ code, message: expect.any(String), details: expect.any(Object) });
  expect(Object.keys(res.body.error.details)).toEqual(expect.arrayContaining(['field', 'value', 'constraint']));
  if (field !== undefined) expect(res.body.error.details.field).toBe(field);
}

describe('who may call', () => {
  it('refuses no token, the anon key and a forged token with 401 in the area A envelope', async () => {
    const forged = (await mintToken({ role: 'authenticated', sub: crypto.randomUUID() })).slice(0, -4) + 'AAAA';
    for (const token of [null, ANON_KEY, forged]) {
      const res = await call('campaigns', { token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    }
  });

  it('lets a customer read but answers every customer write with 403 FORBIDDEN and changes nothing', async () => {
    const id = await campaignIn([]);
    const customer = tokens.customer;
    for (const path of ['campaigns', `campaigns/${id}`, 'campaigns/stats', `campaigns/${id}/metrics`]) {
      expect((await call(path, { token: customer })).status, path).toBe(200);
    }
    const writes = [
      createCampaign({}, customer),
      call(`campaigns/${id}`, { method: 'PUT', token: customer, body: { name: 'Hijacked' } }),
      call(`campaigns/${id}`, { method: 'DELETE', token: customer }),
      call('campaigns/batch', {
        method: 'POST',
        token: customer,
        body: { action: 'update_status', campaign_ids: [id], data: { status: 'active' } },
      }),
      call('campaigns/bulk-status', { method: 'PUT', token: customer, body: { campaign_ids: [id], status: 'cancelled' } }),
    ];
    for (const res of await Promise.all(writes)) expectError(res, 403, 'FORBIDDEN');
    const [row] = await sql`select name, status, deleted_at from public.campaigns where id = ${id}`;
    expect(row).toMatchObject({ status: 'draft', deleted_at: null });
    expect(row.name).not.toBe('Hijacked');
  });

  it('admits the service key as an administrator', async () => {
    const res = await createCampaign({}, tokens.service);
    expect(res.status).toBe(201);
  });
});

describe('creating a campaign', () => {
  it('answers 201 with the whole campaign, draft, with layer, weight and priority copied from its type', async () => {
    const start = freshDay();
    const res = await createCampaign({
      description: 'Autumn tea week',
      start_date: start,
      end_date: addDays(start, 6),
      budget: 1234.5,
      target_audience: 'Tea lovers',
      campaign_type: 'vip_exclusive',
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: expect.any(String),
      description: 'Autumn tea week',
      status: 'draft',
      start_date: start,
      end_date: addDays(start, 6),
      budget: 1234.5,
      target_audience: 'Tea lovers',
      campaign_type: 'vip_exclusive',
      attribution_layer: 'target-oriented',
      priority_score: 85,
      attribution_weight: 1.6,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      allowed_transitions: ['active', 'cancelled'],
    });
  });

  it('lets an administrator override weight and priority; budget defaults to 0', async () => {
    const res = await createCampaign({ attribution_weight: 9.99, priority_score: 0 });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ attribution_weight: 9.99, priority_score: 0, budget: 0 });
  });

  it.each([
    [{ attribution_weight: 10 }],
    [{ attribution_weight: -0.01 }],
    [{ attribution_weight: 123456 }],
  ])('refuses a weight outside 0-9.99 with 422 ATTRIBUTION_WEIGHT_EXCEEDED (%j)', async (override) => {
    expectError(await createCampaign(override), 422, 'ATTRIBUTION_WEIGHT_EXCEEDED', 'attribution_weight');
  });

  it('refuses a start after the end with 422 INVALID_DATE_RANGE', async () => {
    const start = freshDay();
    expectError(await createCampaign({ start_date: start, end_date: addDays(start, -1) }), 422, 'INVALID_DATE_RANGE', 'end_date');
  });

  it.each([
    ['unknown_type', 'a type that does not exist'],
    ['newsletter_promo', 'an inactive type'],
    ['free_shipping', 'a general-layer type'],
  ])('refuses campaign_type %s (%s) with 400 VALIDATION_ERROR', async (campaign_type) => {
    expectError(await createCampaign({ campaign_type }), 400, 'VALIDATION_ERROR', 'campaign_type');
  });

  it('says why an active general-layer type is refused: the catalogue\'s catch-all, not a campaign type', async () => {
    const [{ is_active, attribution_layer }] = await sql`
      select is_active, attribution_layer from public.campaign_type_config where type_code = 'free_shipping'`;
    expect([is_active, attribution_layer]).toEqual([true, 'general']);
    const general = await createCampaign({ campaign_type: 'free_shipping' });
    expectError(general, 400, 'VALIDATION_ERROR', 'campaign_type');
    expect(general.body.error.message).toBe(
      "Invalid campaign_type: free_shipping is a general-layer type; general-layer types are the catalogue's catch-all, not campaign types",
    );
    expect(general.body.error.message).not.toContain('not an active');
    expect(general.body.error.details).toEqual({
      field: 'campaign_type',
      value: 'free_shipping',
      constraint: "not a general-layer type (the catalogue's catch-all): a type of the site-wide, target-oriented or category-specific layer",
    });
    const inactive = await createCampaign({ campaign_type: 'newsletter_promo' });
    expect(inactive.body.error.message).toBe('Invalid campaign_type: newsletter_promo is not an active campaign type');
    expect(inactive.body.error.details.constraint).not.toBe(general.body.error.details.constraint);
  });

  it.each([
    [{ name: undefined }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ start_date: '2030-02-30' }, 'start_date'],
    [{ end_date: 'tomorrow' }, 'end_date'],
    [{ budget: -1 }, 'budget'],
    [{ budget: 1.234 }, 'budget'],
    [{ budget: '100' }, 'budget'],
    [{ priority_score: 101 }, 'priority_score'],
    [{ attribution_weight: 1.234 }, 'attribution_weight'],
    [{ status: 'active' }, 'status'],
    [{ attribution_layer: 'site-wide' }, 'attribution_layer'],
  ])('refuses %j with 400 VALIDATION_ERROR naming %s', async (override, field) => {
    expectError(await createCampaign(override), 400, 'VALIDATION_ERROR', field);
  });

  it('refuses a missing body and malformed JSON with 400, and a non-JSON body with 415', async () => {
    // A missing body is checked as `{}`: its first required field is named (zod-openapi's reading).
    expectError(await call('campaigns', { method: 'POST' }), 400, 'VALIDATION_ERROR', 'name');
    expectError(await call('campaigns', { method: 'POST', rawBody: '{', headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR', 'body');
    expectError(await call('campaigns', { method: 'POST', rawBody: 'name=x', headers: { 'content-type': 'text/plain' } }), 415, 'VALIDATION_ERROR', 'content-type');
  });
});

describe('reading, updating and deleting one campaign', () => {
  it('reads a campaign by id, also under /api/campaigns and /api/v1/campaigns', async () => {
    const id = await campaignIn([]);
    for (const path of [`campaigns/${id}`, `/api/campaigns/${id}`, `/api/v1/campaigns/${id}`]) {
      const res = await call(path);
      expect(res.status, path).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { id, status: 'draft' } });
    }
  });

  it('answers an unknown id with 404 CAMPAIGN_NOT_FOUND and a malformed one with 400', async () => {
    const unknown = crypto.randomUUID();
    expectError(await call(`campaigns/${unknown}`), 404, 'CAMPAIGN_NOT_FOUND', 'id');
    expectError(await call(`campaigns/${unknown}`, { method: 'PUT', body: { name: 'x' } }), 404, 'CAMPAIGN_NOT_FOUND', 'id');
    expectError(await call(`campaigns/${unknown}`, { method: 'DELETE' }), 404, 'CAMPAIGN_NOT_FOUND', 'id');
    expectError(await call(`campaigns/${unknown}/metrics`), 404, 'CAMPAIGN_NOT_FOUND', 'id');
    expectError(await call('campaigns/not-a-uuid'), 400, 'VALIDATION_ERROR', 'id');
  });

  it('updates name, description, budget and status, answering 200 with the campaign', async () => {
    const id = await campaignIn([]);
    const res = await call(`campaigns/${id}`, {
      method: 'PUT',
      body: { name: 'Renamed', description: null, budget: 99.99, status: 'active' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, name: 'Renamed', description: null, budget: 99.99, status: 'active' });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(res.body.data.created_at));
  });

  it('holds date order and weight range on update too', async () => {
    const id = await campaignIn([]);
    const [{ start_date }] = await sql`select start_date::text from public.campaigns where id = ${id}`;
    expectError(await call(`campaigns/${id}`, { method: 'PUT', body: { end_date: addDays(start_date, -1) } }), 422, 'INVALID_DATE_RANGE');
    expectError(await call(`campaigns/${id}`, { method: 'PUT', body: { attribution_weight: 10 } }), 422, 'ATTRIBUTION_WEIGHT_EXCEEDED');
  });

  it.each([
    [{}, 'the body must contain at least one field to change'],
    [{ campaign_type: 'vip_exclusive' }, 'unknown field'],
    [{ status: 'archived' }, undefined],
    [{ name: null }, undefined],
  ])('refuses the update %j with 400 VALIDATION_ERROR', async (body, constraint) => {
    const id = await campaignIn([]);
    const res = await call(`campaigns/${id}`, { method: 'PUT', body });
    expectError(res, 400, 'VALIDATION_ERROR');
    if (constraint) expect(res.body.error.details.constraint).toBe(constraint);
  });

  it('deletes softly: 200 with a message, then 404 everywhere, while the row stays for history', async () => {
    const id = await campaignIn(['active']);
    const res = await call(`campaigns/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expectError(await call(`campaigns/${id}`), 404, 'CAMPAIGN_NOT_FOUND');
    expectError(await call(`campaigns/${id}`, { method: 'DELETE' }), 404, 'CAMPAIGN_NOT_FOUND');
    expectError(await call(`campaigns/${id}`, { method: 'PUT', body: { name: 'back' } }), 404, 'CAMPAIGN_NOT_FOUND');
    const [row] = await sql`select deleted_at from public.campaigns where id = ${id}`;
    expect(row.deleted_at).toBeInstanceOf(Date);
  });

  it('answers a wrong method with 405 and an unknown route with 404, in the area A envelope', async () => {
    const res = await call('campaigns/stats', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    // Hono's Allow: every method of the paths `/stats` matches, `/{id}` included, and HEAD with GET.
    expect(res.headers.get('allow')).toBe('GET, HEAD, PUT, DELETE');
    // A method a fixed path lacks is routed to `/{id}`, whose id the route refuses: never a campaign "stats".
    for (const [method, path] of [['DELETE', 'campaigns/stats'], ['PUT', 'campaigns/attribution'], ['GET', 'campaigns/batch']]) {
      const wrong = await call(path, { method, body: method === 'PUT' ? {} : undefined });
      expect(wrong.status, `${method} ${path}`).toBe(400);
      expect(wrong.body.error.details).toMatchObject({ field: 'id', value: path.split('/')[1] });
    }
    const missing = await call('campaigns/a/b/c');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});

describe('status moves', () => {
  const PATHS: Record<string, string[]> = {
    draft: [],
    active: ['active'],
    paused: ['active', 'paused'],
    completed: ['active', 'completed'],
    cancelled: ['cancelled'],
  };

  it("a campaign's allowed_transitions are exactly the moves the database then accepts", async () => {
    const allowedFrom: Record<string, string[]> = {};
    for (const [from, path] of Object.entries(PATHS)) {
      const read = await call(`campaigns/${await campaignIn(path)}`);
      expect(read.body.data.status).toBe(from);
      allowedFrom[from] = read.body.data.allowed_transitions;
    }
    for (const [from, path] of Object.entries(PATHS)) {
      for (const to of Object.keys(PATHS).filter((s) => s !== from)) {
        const moved = await call(`campaigns/${await campaignIn(path)}`, { method: 'PUT', body: { status: to } });
        expect({ from, to, status: moved.status }).toEqual({ from, to, status: allowedFrom[from].includes(to) ? 200 : 422 });
        if (moved.status === 200) expect(moved.body.data.allowed_transitions).toEqual(allowedFrom[to]);
      }
    }
  });
});

describe('listing', () => {
  it('pages newest first with the seed defaults and reports the pagination', async () => {
    const res = await call('campaigns');
    expect(res.status).toBe(200);
    const { campaigns, pagination } = res.body.data;
    expect(pagination).toEqual({
      current_page: 1,
      per_page: 20,
      total_count: expect.any(Number),
      total_pages: Math.ceil(pagination.total_count / 20),
    });
    expect(campaigns.length).toBe(Math.min(20, pagination.total_count));
    for (const c of campaigns) expect(Object.keys(c).sort()).toEqual(['allowed_transitions', 'budget', 'created_at', 'end_date', 'id', 'name', 'start_date', 'status']);
    const created = campaigns.map((c: any) => Date.parse(c.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it('searches name and description, case-insensitively, with % and _ taken literally', async () => {
    const tag = unique('Zebra');
    const byName = await campaignIn([], { name: `${tag} week` });
    const byDescription = await campaignIn([], { description: `All about ${tag.toUpperCase()}` });
    await campaignIn([], { name: `${tag.slice(0, -1)}% off` });
    const res = await call(`campaigns?search=${encodeURIComponent(tag.toLowerCase())}&limit=100`);
    expect(res.body.data.campaigns.map((c: any) => c.id).sort()).toEqual([byName, byDescription].sort());
    const literal = await call(`campaigns?search=${encodeURIComponent(`${tag.slice(0, -1)}%`)}`);
    expect(literal.body.data.pagination.total_count).toBe(1);
  });

  it('filters by status and keeps campaigns whose dates overlap the window', async () => {
    const start = freshDay();
    const tag = unique('Window');
    const before = await campaignIn([], { name: tag, start_date: addDays(start, -10), end_date: addDays(start, -1) });
    const straddles = await campaignIn(['active'], { name: tag, start_date: addDays(start, -3), end_date: addDays(start, 2) });
    const inside = await campaignIn([], { name: tag, start_date: addDays(start, 3), end_date: addDays(start, 4) });
    const after = await campaignIn([], { name: tag, start_date: addDays(start, 6), end_date: addDays(start, 9) });
    const window = `search=${tag}&start_date=${start}&end_date=${addDays(start, 5)}`;
    const ids = (await call(`campaigns?${window}`)).body.data.campaigns.map((c: any) => c.id);
    expect(ids.sort()).toEqual([straddles, inside].sort());
    expect(ids).not.toContain(before);
    expect(ids).not.toContain(after);
    const active = await call(`campaigns?${window}&status=active`);
    expect(active.body.data.campaigns.map((c: any) => c.id)).toEqual([straddles]);
    const open = await call(`campaigns?search=${tag}&start_date=${addDays(start, 5)}`);
    expect(open.body.data.campaigns.map((c: any) => c.id)).toEqual([after]);
  });

  it('reports the true total past the last page', async () => {
    const tag = unique('Paging');
    for (let i = 0; i < 3; i++) await campaignIn([], { name: tag });
    const res = await call(`campaigns?search=${tag}&limit=2&page=5`);
    expect(res.body.data).toEqual({ campaigns: [], pagination: { current_page: 5, per_page: 2, total_count: 3, total_pages: 2 } });
  });

  it.each([
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
    ['status=archived', 'status'],
    ['start_date=2026-13-01', 'start_date'],
    ['sort=name', 'sort'],
  ])('refuses the query %s with 400 naming %s', async (query, field) => {
    expectError(await call(`campaigns?${query}`), 400, 'VALIDATION_ERROR', field);
  });

  it('refuses a window that ends before it starts with 422 INVALID_DATE_RANGE', async () => {
    expectError(await call('campaigns?start_date=2030-01-02&end_date=2030-01-01'), 422, 'INVALID_DATE_RANGE', 'end_date');
  });
});

describe('batch update_status and bulk-status', () => {
  it('moves every campaign and answers updated_count and the campaigns', async () => {
    const ids = [await campaignIn([]), await campaignIn([]), await campaignIn(['active'])];
    const batch = await call('campaigns/batch', {
      method: 'POST',
      body: { action: 'update_status', campaign_ids: ids.slice(0, 2), data: { status: 'active' } },
    });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.data.updated_count).toBe(2);
    expect(batch.body.data.campaigns.map((c: any) => [c.id, c.status])).toEqual(ids.slice(0, 2).map((id) => [id, 'active']));
    const bulk = await call('campaigns/bulk-status', { method: 'PUT', body: { campaign_ids: ids, status: 'paused' } });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data).toMatchObject({ updated_count: 3 });
    expect(bulk.body.data.campaigns.every((c: any) => c.status === 'paused')).toBe(true);
  });

  it('is all or nothing: one unknown id and one forbidden move change nothing, and both are named', async () => {
    const movable = [await campaignIn([]), await campaignIn([])];
    const finished = await campaignIn(['cancelled']);
    const unknown = crypto.randomUUID();
    const historyBefore = await sql`select count(*)::int from public.campaign_status_history where campaign_id = any(${movable})`;
    for (const res of [
      await call('campaigns/batch', {
        method: 'POST',
        body: { action: 'update_status', campaign_ids: [...movable, unknown, finished], data: { status: 'active' } },
      }),
      await call('campaigns/bulk-status', { method: 'PUT', body: { campaign_ids: [...movable, unknown, finished], status: 'active' } }),
    ]) {
      expectError(res, 422, 'CAMPAIGN_NOT_FOUND', 'campaign_ids');
      expect(res.body.error.details.value).toEqual([unknown, finished]);
      expect(res.body.error.details.failures).toEqual([
        { campaign_id: unknown, code: 'CAMPAIGN_NOT_FOUND', message: expect.any(String) },
        { campaign_id: finished, code: 'INVALID_STATUS_TRANSITION', message: expect.stringContaining('cancelled') },
      ]);
    }
    const rows = await sql`select status from public.campaigns where id = any(${movable})`;
    expect(rows.map((r) => r.status)).toEqual(['draft', 'draft']);
    expect(await sql`select count(*)::int from public.campaign_status_history where campaign_id = any(${movable})`).toEqual(historyBefore);
  });

  it('refuses to activate two overlapping site-wide campaigns in one batch, naming the second', async () => {
    const start = freshDay();
    const first = await campaignIn([], { campaign_type: 'anniversary_sale', start_date: start, end_date: addDays(start, 5) });
    const second = await campaignIn([], { campaign_type: 'double_eleven', start_date: addDays(start, 5), end_date: addDays(start, 9) });
    const res = await call('campaigns/bulk-status', { method: 'PUT', body: { campaign_ids: [first, second], status: 'active' } });
    expectError(res, 422, 'CAMPAIGN_OVERLAP_CONFLICT', 'campaign_ids');
    expect(res.body.error.details.value).toEqual([second]);
    // The campaign it clashes with is named in the details, for a client to say in its own words.
    const [{ name }] = await sql`select name from public.campaigns where id = ${first}`;
    expect(res.body.error.details.failures[0].conflicts_with).toEqual({
      id: first, name, start_date: start, end_date: addDays(start, 5),
    });
    const rows = await sql`select status from public.campaigns where id in (${first}, ${second})`;
    expect(rows.map((r) => r.status)).toEqual(['draft', 'draft']);
  });

  it.each([
    [{ action: 'delete', campaign_ids: ['00000000-0000-4000-8000-000000000009'], data: { status: 'active' } }, 'action'],
    [{ action: 'update_status', campaign_ids: [], data: { status: 'active' } }, 'campaign_ids'],
    [{ action: 'update_status', campaign_ids: ['nope'], data: { status: 'active' } }, 'campaign_ids.0'],
    [{ action: 'update_status', campaign_ids: ['00000000-0000-4000-8000-000000000009'], data: { status: 'gone' } }, 'data.status'],
    [{ action: 'update_status', campaign_ids: ['00000000-0000-4000-8000-000000000009'], data: {} }, 'data.status'],
    [{ action: 'update_status', campaign_ids: Array.from({ length: 501 }, () => crypto.randomUUID()), data: { status: 'active' } }, 'campaign_ids'],
  ])('refuses the batch %# with 400 VALIDATION_ERROR naming its field', async (body, field) => {
    expectError(await call('campaigns/batch', { method: 'POST', body }), 400, 'VALIDATION_ERROR', field);
  });

  it('refuses a bulk-status body without a valid status with 400', async () => {
    expectError(
      await call('campaigns/bulk-status', { method: 'PUT', body: { campaign_ids: [crypto.randomUUID()], status: 'done' } }),
      400,
      'VALIDATION_ERROR',
      'status',
    );
  });
});

describe('the site-wide overlap rule under concurrency', () => {
  it('of two simultaneous activations of overlapping site-wide campaigns, exactly one wins', async () => {
    for (let round = 0; round < 3; round++) {
      const start = freshDay();
      const a = await campaignIn([], { campaign_type: 'anniversary_sale', start_date: start, end_date: addDays(start, 10) });
      const b = await campaignIn([], { campaign_type: 'clearance_event', start_date: addDays(start, 10), end_date: addDays(start, 20) });
      const results = await Promise.all([
        call(`campaigns/${a}`, { method: 'PUT', body: { status: 'active' } }),
        call('campaigns/bulk-status', { method: 'PUT', body: { campaign_ids: [b], status: 'active' } }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
      const loser = results.find((r) => r.status === 422)!;
      expect(loser.body.error.code).toBe('CAMPAIGN_OVERLAP_CONFLICT');
      const active = await sql`select id from public.campaigns where id in (${a}, ${b}) and status = 'active'`;
      expect(active).toHaveLength(1);
    }
  });

  it('refuses moving an active site-wide campaign onto another one\'s dates, and allows other layers to overlap', async () => {
    const start = freshDay();
    await campaignIn(['active'], { campaign_type: 'anniversary_sale', start_date: start, end_date: addDays(start, 5) });
    const later = await campaignIn(['active'], { campaign_type: 'double_eleven', start_date: addDays(start, 6), end_date: addDays(start, 9) });
    const res = await call(`campaigns/${later}`, { method: 'PUT', body: { start_date: addDays(start, 5) } });
    expectError(res, 422, 'CAMPAIGN_OVERLAP_CONFLICT', 'start_date');
    await campaignIn(['active'], { campaign_type: 'vip_exclusive', start_date: start, end_date: addDays(start, 9) });
    await campaignIn(['active'], { campaign_type: 'brand_week', start_date: start, end_date: addDays(start, 9) });
  });

  it('lets a site-wide campaign be activated once the overlapping one is paused', async () => {
    const start = freshDay();
    const first = await campaignIn(['active'], { campaign_type: 'anniversary_sale', start_date: start, end_date: addDays(start, 5) });
    const second = await campaignIn([], { campaign_type: 'double_eleven', start_date: start, end_date: addDays(start, 5) });
    const refused = await call(`campaigns/${second}`, { method: 'PUT', body: { status: 'active' } });
    expectError(refused, 422, 'CAMPAIGN_OVERLAP_CONFLICT', 'status');
    expect(refused.body.error.details.conflicts_with).toMatchObject({ id: first, start_date: start, end_date: addDays(start, 5) });
    expect((await call(`campaigns/${first}`, { method: 'PUT', body: { status: 'paused' } })).status).toBe(200);
    expect((await call(`campaigns/${second}`, { method: 'PUT', body: { status: 'active' } })).status).toBe(200);
    expectError(await call(`campaigns/${first}`, { method: 'PUT', body: { status: 'active' } }), 422, 'CAMPAIGN_OVERLAP_CONFLICT');
  });
});

describe('stats', () => {
  it('counts every non-deleted campaign by status and sums budgets, as the database holds them', async () => {
    await campaignIn(['active'], { budget: 10 });
    const snapshot = () =>
      sql`select count(*)::int as total_campaigns,
                 count(*) filter (where status = 'active')::int as active_campaigns,
                 count(*) filter (where status = 'draft')::int as draft_campaigns,
                 count(*) filter (where status = 'completed')::int as completed_campaigns,
                 count(*) filter (where status = 'paused')::int as paused_campaigns,
                 count(*) filter (where status = 'cancelled')::int as cancelled_campaigns,
                 coalesce(sum(budget), 0)::float8 as total_budget,
                 coalesce(sum(budget) filter (where status = 'active'), 0)::float8 as active_budget
          from public.campaigns where deleted_at is null`;
    // Other files create campaigns concurrently: compare against a table that held still around the call.
    for (let attempt = 0; attempt < 5; attempt++) {
      const [before] = await snapshot();
      const res = await call('campaigns/stats', { token: tokens.customer });
      const [after] = await snapshot();
      if (JSON.stringify(before) !== JSON.stringify(after)) continue;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { ...before } });
      expect(before.active_campaigns).toBeGreaterThan(0);
      return;
    }
    throw new Error('the campaigns never held still for five attempts');
  });
});
