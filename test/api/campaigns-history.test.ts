// GET /campaigns/:id/history: a campaign's status history as the database recorded it, oldest first, with
// who made each move and in which role; the campaign's own 404 and id rules.
import { describe, expect, it } from 'vitest';
import { addDays, campaignIn, freshDay } from '../support/campaigns.ts';
import { call, database, DEMO_ADMIN_ID, tokens } from '../support/client.ts';

const sql = database();

describe('the status history', () => {
  it('lists the creation and every move, oldest first, with when, by whom and in which role', async () => {
    const id = await campaignIn(['active', 'paused', 'active', 'completed']);
    const res = await call(`campaigns/${id}/history`, { token: tokens.customer });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.campaign_id).toBe(id);
    const { history } = res.body.data;
    expect(history.map((h: any) => [h.from_status, h.to_status])).toEqual([
      [null, 'draft'],
      ['draft', 'active'],
      ['active', 'paused'],
      ['paused', 'active'],
      ['active', 'completed'],
    ]);
    expect(history.every((h: any) => h.changed_by === DEMO_ADMIN_ID && h.changed_by_role === 'authenticated')).toBe(true);
    // By email to staff; a customer, who made none of these moves, is not told who did.
    expect(history.every((h: any) => h.changed_by_email === null)).toBe(true);
    const [{ email }] = await sql`select email from auth.users where id = ${DEMO_ADMIN_ID}`;
    const asAdmin = await call(`campaigns/${id}/history`);
    expect(asAdmin.body.data.history.map((h: any) => h.changed_by_email)).toEqual(history.map(() => email));
    const rows = await sql`select changed_at from public.campaign_status_history where campaign_id = ${id} order by changed_at, id`;
    expect(history.map((h: any) => Date.parse(h.changed_at))).toEqual(rows.map((r: any) => r.changed_at.getTime()));
  });

  it('names the service role, with no user, for a move made with the service key', async () => {
    const id = await campaignIn([]);
    expect((await call(`campaigns/${id}`, { method: 'PUT', token: tokens.service, body: { status: 'active' } })).status).toBe(200);
    const res = await call(`campaigns/${id}/history`);
    expect(res.body.data.history.at(-1)).toMatchObject({
      from_status: 'draft',
      to_status: 'active',
      changed_by: null,
      changed_by_email: null,
      changed_by_role: 'service_role',
    });
  });

  it('is in the order the moves took effect (changed_at, the order attribution walks), not the order of the row ids', async () => {
    const start = freshDay();
    const id = await campaignIn(['active', 'paused'], { start_date: start, end_date: addDays(start, 3) });
    const rows = await sql`select id from public.campaign_status_history where campaign_id = ${id} order by id`;
    // Dated as the table owner so that the id order and the time order differ.
    await sql`update public.campaign_status_history set changed_at = '2030-01-03T00:00:00Z' where id = ${rows[0].id}`;
    await sql`update public.campaign_status_history set changed_at = '2030-01-01T00:00:00Z' where id = ${rows[1].id}`;
    await sql`update public.campaign_status_history set changed_at = '2030-01-02T00:00:00Z' where id = ${rows[2].id}`;
    const res = await call(`campaigns/${id}/history`);
    expect(res.body.data.history.map((h: any) => [h.to_status, h.changed_at])).toEqual([
      ['active', '2030-01-01T00:00:00.000Z'],
      ['paused', '2030-01-02T00:00:00.000Z'],
      ['draft', '2030-01-03T00:00:00.000Z'],
    ]);
  });

  it('answers an unknown or deleted campaign with 404 CAMPAIGN_NOT_FOUND, a non-UUID with 400, no token with 401', async () => {
    const unknown = crypto.randomUUID();
    expect((await call(`campaigns/${unknown}/history`)).body.error).toMatchObject({ code: 'CAMPAIGN_NOT_FOUND', details: { field: 'id', value: unknown } });
    const id = await campaignIn([]);
    expect((await call(`campaigns/${id}`, { method: 'DELETE' })).status).toBe(200);
    const deleted = await call(`campaigns/${id}/history`);
    expect(deleted.status).toBe(404);
    expect(deleted.body.error.code).toBe('CAMPAIGN_NOT_FOUND');
    const bad = await call('campaigns/not-a-uuid/history');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'id' } });
    expect((await call(`campaigns/${unknown}/history`, { token: tokens.anon })).status).toBe(401);
  });
});
