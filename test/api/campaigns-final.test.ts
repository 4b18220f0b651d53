// A completed or cancelled campaign is history: attribution has counted it with its weight, priority and
// dates, so those can no longer change (raising a completed campaign's weight from 2 to 9.99 used to
// rewrite the revenue attributed to it). Its name, description, budget and audience stay editable.
import { describe, expect, it } from 'vitest';
import { addDays, admin, campaignIn } from '../support/campaigns.ts';
import { asRole, call, database } from '../support/client.ts';

const sql = database();

const EDITS = [
  ['attribution_weight', 9.99],
  ['priority_score', 99],
  ['start_date', -1],
  ['end_date', 1],
] as const;

async function finalCampaign(status: 'completed' | 'cancelled') {
  const id = await campaignIn(status === 'completed' ? ['active', 'completed'] : ['active', 'cancelled'], {
    attribution_weight: 2,
    priority_score: 40,
  });
  const [row] = await sql`select start_date::text, end_date::text, attribution_weight, priority_score
                          from public.campaigns where id = ${id}`;
  return { id, row };
}

function changed(row: Record<string, any>, field: string, edit: number) {
  return field.endsWith('_date') ? addDays(row[field], edit) : edit;
}

describe('a completed or cancelled campaign keeps what attribution read', () => {
  it.each((['completed', 'cancelled'] as const).flatMap((status) => EDITS.map(([field, edit]) => [status, field, edit] as const)))(
    'a %s campaign: editing %s is refused with 422 CAMPAIGN_FINAL naming the field, and nothing changes',
    async (status, field, edit) => {
      const { id, row } = await finalCampaign(status);
      const res = await call(`campaigns/${id}`, { method: 'PUT', body: { [field]: changed(row, field, edit) } });
      expect(res.status, res.text).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'CAMPAIGN_FINAL', details: { field, value: changed(row, field, edit) } });
      expect(res.body.error.message).toContain(status);
      const [after] = await sql`select start_date::text, end_date::text, attribution_weight, priority_score
                                from public.campaigns where id = ${id}`;
      expect(after).toEqual(row);
    },
  );

  it('holds for direct table writes too: an admin session cannot raise a completed campaign\'s weight', async () => {
    const { id } = await finalCampaign('completed');
    const { error } = await asRole(sql, admin, (tx) => tx`update public.campaigns set attribution_weight = 9.99 where id = ${id}`);
    expect(error?.code).toBe('PT422');
    expect(error?.message).toBe('CAMPAIGN_FINAL');
    expect(JSON.parse(error?.hint ?? '{}')).toMatchObject({ field: 'attribution_weight', value: 9.99 });
  });

  it('name, description, budget and target audience stay editable; a same-value write of a locked field is no edit', async () => {
    const { id, row } = await finalCampaign('completed');
    const res = await call(`campaigns/${id}`, {
      method: 'PUT',
      body: { name: 'Renamed after the fact', description: 'notes', budget: 10, target_audience: 'VIP', attribution_weight: 2 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Renamed after the fact', budget: 10, attribution_weight: 2, start_date: row.start_date });
  });

  it('a paused campaign\'s weight and dates can still change', async () => {
    const id = await campaignIn(['active', 'paused']);
    const res = await call(`campaigns/${id}`, { method: 'PUT', body: { attribution_weight: 3.5, priority_score: 70 } });
    expect(res.status, res.text).toBe(200);
  });
});
