/** Campaigns and dates for the campaign and attribution tests, made over real HTTP and SQL. */
import { randomInt } from 'node:crypto';
import type postgres from 'postgres';
import { expect } from 'vitest';
import { asRole, call, callRetryingLocks, DEMO_ADMIN_ID, type Sql, tokens, unique } from './client.ts';

export const admin = { role: 'authenticated', sub: DEMO_ADMIN_ID } as const;

/** Types of the seed catalogue, one per campaign layer. */
export const TYPE_BY_LAYER = {
  'site-wide': 'anniversary_sale',
  'target-oriented': 'vip_exclusive',
  'category-specific': 'brand_week',
} as const;

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export { storeDay, storeToday } from './store-day.ts';

/**
 * The order change log's last key, which every order write moves, committed or not. Read around an API call
 * beside the rows it is compared with: an order placed and deleted during the call leaves the rows as they
 * were but not this, so the comparison is tried again instead of failing on revenue the call saw.
 */
export async function lastOrderWrite(sql: Sql): Promise<string | null> {
  const [{ last }] = await sql<{ last: string | null }[]>`
    select pg_sequence_last_value(pg_get_serial_sequence('private.order_changes', 'change_id'))::text as last`;
  return last;
}

/**
 * A random day between the years 2200 and 9999. Attribution counts every campaign active on a day, and
 * test files share one database, so each test works on days nobody else uses; campaigns active now
 * count for their future days, so no history needs rewriting.
 */
export function freshDay(): string {
  return addDays('2200-01-01', randomInt(0, 2_800_000));
}

export async function createCampaign(overrides: Record<string, unknown> = {}, token = tokens.admin) {
  const start = freshDay();
  return call('campaigns', {
    method: 'POST',
    token,
    body: { name: unique('Campaign'), start_date: start, end_date: addDays(start, 9), campaign_type: 'brand_week', ...overrides },
  });
}

/** Creates a campaign and moves it through `statuses` over HTTP, failing loudly if any step fails. */
export async function campaignIn(statuses: string[], overrides: Record<string, unknown> = {}): Promise<string> {
  const created = await createCampaign(overrides);
  expect(created.status, created.text).toBe(201);
  for (const status of statuses) {
    const moved = await callRetryingLocks(`campaigns/${created.body.data.id}`, { method: 'PUT', body: { status } });
    expect(moved.status, moved.text).toBe(200);
  }
  return created.body.data.id;
}

export interface PlannedCampaign {
  layer: keyof typeof TYPE_BY_LAYER;
  weight: number;
  priority: number;
}

/**
 * Creates and activates `campaigns` covering `day` as the administrator, runs `work`, then rolls all of
 * it back: attribution scenarios leave nothing behind.
 */
export async function withActiveCampaigns<T>(
  sql: Sql,
  day: string,
  campaigns: PlannedCampaign[],
  work: (tx: postgres.TransactionSql, ids: string[]) => Promise<T>,
): Promise<T> {
  const { result, error } = await asRole(sql, admin, async (tx) => {
    const ids: string[] = [];
    for (const [i, c] of campaigns.entries()) {
      const [{ id }] = await tx`select id from public.create_campaign(${
        tx.json({
          name: `Scenario ${i}`,
          start_date: addDays(day, -2),
          end_date: addDays(day, 2),
          campaign_type: TYPE_BY_LAYER[c.layer],
          attribution_weight: c.weight,
          priority_score: c.priority,
        })
      })`;
      await tx`select 1 from public.update_campaign(${id}, '{"status":"active"}')`;
      ids.push(id);
    }
    return work(tx, ids);
  });
  if (error) throw error;
  return result as T;
}

export async function attributions(tx: postgres.Sql | postgres.TransactionSql, day: string, amount?: number) {
  const [{ result }] = amount === undefined
    ? await tx`select public.calculate_campaign_attributions(${day}) as result`
    : await tx`select public.calculate_campaign_attributions(${day}, ${amount}) as result`;
  return result;
}
