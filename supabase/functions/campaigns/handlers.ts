/** The campaign operations. Each is one transaction as the caller; writes are one SQL function each. */
import type { z } from 'zod';
import { containsPattern, type Database, pageOf, type Tx } from '../_shared/db.ts';
import { ApiError, campaignArea as area } from '../_shared/errors.ts';
import type { Context, TypedResponse } from 'hono';
import { type Ctx, ok } from '../_shared/http.ts';
import type * as routes from './routes.ts';
import type {
  calendarResponse,
  campaign,
  collaborationResponse,
  historyResponse,
  listResponse,
  metricsResponse,
  revenueAttributionResponse,
  statsResponse,
} from './responses.ts';
import type * as schemas from './schemas.ts';
import { MAX_RANGE_DAYS } from './schemas.ts';

/** The Campaign resource of seed 03: every field but the bookkeeping ones (creator, deletion). */
const CAMPAIGN_FIELDS = [
  'id',
  'name',
  'description',
  'status',
  'start_date',
  'end_date',
  'budget',
  'target_audience',
  'campaign_type',
  'attribution_layer',
  'priority_score',
  'attribution_weight',
  'created_at',
  'updated_at',
] as const;
const LIST_FIELDS = ['id', 'name', 'status', 'start_date', 'end_date', 'budget', 'created_at'];

/** `fields` of the campaign rows aliased `c`, with the statuses each may move to next (the database's rule). */
const withMoves = (tx: Tx, fields: readonly string[]) =>
  tx`${tx(fields as string[])}, public.allowed_transitions(c) as allowed_transitions`;

// Each row as the answer states it (responses.ts): the SQL below is held to it by the tests that validate
// every answer against the document.
type Campaign = z.output<typeof campaign>;
type Listed = z.output<typeof listResponse>['data']['campaigns'][number];
type Day = z.output<typeof calendarResponse>['data']['days'][number];
type Attributed = z.output<typeof revenueAttributionResponse>['data']['campaigns'][number];
type Pair = z.output<typeof collaborationResponse>['data']['pairs'][number];
type Move = z.output<typeof historyResponse>['data']['history'][number];
type Metrics = z.output<typeof metricsResponse>['data'];

export function campaignHandlers(db: Database) {
  return {
    async list(c: Ctx<typeof routes.list>) {
      const query = c.req.valid('query');
      if (query.start_date && query.end_date && query.start_date > query.end_date) {
        throw new ApiError(422, 'INVALID_DATE_RANGE', 'start_date must not be later than end_date', {
          field: 'end_date',
          value: query.end_date,
          constraint: `on or after start_date (${query.start_date})`,
          rule: 'on_or_after',
          params: { field: 'start_date', value: query.start_date },
        });
      }
      const page = query.page ?? 1;
      const limit = query.limit ?? 20;
      const { rows, totalCount } = await db.asCaller(c.var.caller, area, (tx) => campaignPage(tx, query));
      return ok(c, {
        campaigns: rows,
        pagination: {
          current_page: page,
          total_pages: Math.ceil(totalCount / limit),
          total_count: totalCount,
          per_page: limit,
        },
      });
    },

    async create(c: Ctx<typeof routes.create>) {
      const campaign = c.req.valid('json');
      const [created] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<Campaign[]>`select ${withMoves(tx, CAMPAIGN_FIELDS)} from public.create_campaign(${tx.json(campaign)}) c`,
      );
      return ok(c, created, 201);
    },

    async read(c: Ctx<typeof routes.read>) {
      const { id } = c.req.valid('param');
      const [campaign] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<Campaign[]>`
            select ${withMoves(tx, CAMPAIGN_FIELDS)} from public.campaigns c where id = ${id} and deleted_at is null`,
      );
      if (!campaign) throw notFound(id);
      return ok(c, campaign);
    },

    async update(c: Ctx<typeof routes.update>) {
      const { id } = c.req.valid('param');
      const changes = c.req.valid('json');
      const [updated] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<Campaign[]>`select ${withMoves(tx, CAMPAIGN_FIELDS)} from public.update_campaign(${id}, ${
            tx.json(changes)
          }) c`,
      );
      return ok(c, updated);
    },

    async remove(c: Ctx<typeof routes.remove>) {
      const { id } = c.req.valid('param');
      await db.asCaller(c.var.caller, area, (tx) => tx`select 1 from public.delete_campaign(${id})`);
      return c.json({ success: true as const, message: `Campaign ${id} deleted` }, 200);
    },

    batch(c: Ctx<typeof routes.batch>) {
      const body = c.req.valid('json');
      return setStatuses(c, body.campaign_ids, body.data.status);
    },

    bulkStatus(c: Ctx<typeof routes.bulkStatus>) {
      const body = c.req.valid('json');
      return setStatuses(c, body.campaign_ids, body.status);
    },

    async stats(c: Ctx<typeof routes.stats>) {
      const [stats] = await db.asCaller(
        c.var.caller,
        area,
        (tx) => tx<z.output<typeof statsResponse>['data'][]>`select * from public.campaign_stats`,
      );
      return ok(c, stats);
    },

    async attribution(c: Ctx<typeof routes.attribution>) {
      const query = c.req.valid('query');
      const [{ result }] = await db.asCaller(c.var.caller, area, (tx) =>
        tx<{ result: string }[]>`
          select private.campaign_attributions_json(${query.date}::date, ${query.order_amount ?? null}::numeric,
                                                    ${query.limit ?? null}::integer) as result`);
      return successWithJsonText(c, result);
    },

    /**
     * The status history, oldest first: the order attribution walks it in. Who made each move by email, for
     * administrators and for the operator themself (private.operator_email), as the stock ledger names them.
     */
    async history(c: Ctx<typeof routes.history>) {
      const { id } = c.req.valid('param');
      // A campaign without history still gives its one row, every column null: found, with no move.
      const rows = await db.asCaller(c.var.caller, area, (tx) =>
        tx<(Move | { [K in keyof Move]: null })[]>`
          select h.from_status, h.to_status, h.changed_at, h.changed_by,
                 private.operator_email(h.changed_by) as changed_by_email, h.changed_by_role
          from public.campaigns c
          left join public.campaign_status_history h on h.campaign_id = c.id
          where c.id = ${id} and c.deleted_at is null
          order by h.changed_at, h.id`);
      if (rows.length === 0) throw notFound(id);
      const history = rows.filter((row): row is Move => row.to_status !== null);
      return ok(c, { campaign_id: id, history });
    },

    /** The days with at least one campaign counted, future ones included (public.campaign_calendar). */
    calendar(c: Ctx<typeof routes.calendar>) {
      return analysis(c, (tx, from, to) =>
        tx<Day[]>`
          select * from public.campaign_calendar(${from}::date, ${to}::date) order by date`)
        .then(({ from, to, rows }) => ok(c, { from, to, days: rows }));
    },

    /** Per campaign counted in the range, most revenue first (public.revenue_attribution). */
    revenueAttribution(c: Ctx<typeof routes.revenueAttribution>) {
      return analysis(c, (tx, from, to) =>
        tx<Attributed[]>`
          select * from public.revenue_attribution(${from}::date, ${to}::date)
          order by total_attributed_revenue desc, campaign_id`)
        .then(({ from, to, rows }) => ok(c, { from, to, campaigns: rows }));
    },

    /** Per pair of campaigns counted on the same days, most days together first (public.campaign_collaboration). */
    collaboration(c: Ctx<typeof routes.collaboration>) {
      return analysis(c, (tx, from, to) =>
        tx<Pair[]>`
          select * from public.campaign_collaboration(${from}::date, ${to}::date)
          order by overlap_days desc, first_overlap_date, campaign_1_id, campaign_2_id`)
        .then(({ from, to, rows }) => ok(c, { from, to, pairs: rows }));
    },

    async metrics(c: Ctx<typeof routes.metrics>) {
      const { id } = c.req.valid('param');
      const metrics = await db.asCaller(c.var.caller, area, (tx) => campaignMetrics(tx, id));
      if (!metrics) throw notFound(id);
      const { daily_attribution, ...figures } = metrics;
      return ok(c, { campaign_id: id, metrics: figures, daily_attribution });
    },
  };

  /** The three analyses over a range of store days share their query (`rangeQuery`). */
  async function analysis<T>(
    c: Ctx<typeof routes.calendar>,
    read: (tx: Tx, from: string, to: string) => Promise<T[]>,
  ) {
    const { from, to } = checkedRange(c.req.valid('query'));
    return { from, to, rows: await db.asCaller(c.var.caller, area, (tx) => read(tx, from, to)) };
  }

  async function setStatuses(c: Ctx<typeof routes.batch | typeof routes.bulkStatus>, ids: string[], status: string) {
    const campaigns = await db.asCaller(
      c.var.caller,
      area,
      (tx) =>
        tx<Campaign[]>`
          select ${withMoves(tx, CAMPAIGN_FIELDS)} from public.set_campaign_statuses(${ids}::uuid[], ${status}) c`,
    );
    return ok(c, { updated_count: campaigns.length, campaigns });
  }
}

/**
 * A campaign's figures (docs/campaigns.md), from private.campaign_metrics: the same attribution rows as
 * campaign_overlap_calendar, computed only for the days of the campaign's dates, so they agree with the
 * views without reading the whole calendar; with its spend to date, ROAS and pacing
 * (40_campaigns/50_campaign_spend.sql) over the same days. Undefined when the caller sees no such campaign; one round
 * trip either way.
 */
export async function campaignMetrics(tx: Tx, id: string) {
  const [row] = await tx<(Metrics['metrics'] & Pick<Metrics, 'daily_attribution'>)[]>`
    select m.*, p.spend_to_date, p.recorded as spend_recorded, p.pacing,
           round(m.attributed_revenue / nullif(p.spend_to_date, 0), 2) as roas
    from public.campaigns c
    cross join lateral private.campaign_metrics(c.id) m
    cross join lateral private.campaign_pacing(c.id) p
    where c.id = ${id}::uuid and c.deleted_at is null`;
  return row as (Metrics['metrics'] & Pick<Metrics, 'daily_attribution'>) | undefined;
}

/**
 * The range of an analysis read: `from` not later than `to` (422 INVALID_DATE_RANGE, as for the list's
 * window) and at most MAX_RANGE_DAYS days, both included (400).
 */
export function checkedRange({ from, to }: { from: string; to: string }): { from: string; to: string } {
  if (from > to) {
    throw new ApiError(422, 'INVALID_DATE_RANGE', 'from must not be later than to', {
      field: 'to',
      value: to,
      constraint: `on or after from (${from})`,
      rule: 'on_or_after',
      params: { field: 'from', value: from },
    });
  }
  const last = new Date(Date.parse(`${from}T00:00:00Z`) + (MAX_RANGE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  if (to > last) {
    throw new ApiError(400, area.codes.validation, `Invalid to: at most ${MAX_RANGE_DAYS} days per call`, {
      field: 'to',
      value: to,
      constraint: `on or before ${last}: at most ${MAX_RANGE_DAYS} days starting at from (${from})`,
      rule: 'max_days',
      params: { max: MAX_RANGE_DAYS, last },
    });
  }
  return { from, to };
}

/**
 * A page of the campaign list, as GET /campaigns answers it (and as `npm run bench` measures its database
 * ceiling). The page is chosen on the list's own columns, and only its rows are read again whole for the
 * statuses each may move to: a whole-row reference in the paged query would carry every matching row at
 * full width through the count and the sort.
 */
export function campaignPage(tx: Tx, query: z.infer<typeof schemas.listQuery>) {
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  const pattern = query.search === undefined ? undefined : containsPattern(query.search);
  const where = tx`deleted_at is null
    and ${query.status ? tx`status = ${query.status}` : tx`true`}
    and ${pattern ? tx`id in (select private.matching_campaign_ids(${pattern}))` : tx`true`}
    and ${
    query.start_date || query.end_date
      ? tx`daterange(start_date, end_date, '[]')
           && daterange(${query.start_date ?? null}::date, ${query.end_date ?? null}::date, '[]')`
      : tx`true`
  }`;
  return pageOf(
    tx<(Listed & { total_count: number })[]>`
      select ${tx(LIST_FIELDS.map((field) => `p.${field}`))}, public.allowed_transitions(c) as allowed_transitions,
             p.total_count
      from (
        select ${tx(LIST_FIELDS)}, count(*) over () as total_count
        from public.campaigns
        where ${where}
        order by created_at desc, id desc
        limit ${limit} offset ${(page - 1) * limit}
      ) p
      join public.campaigns c on c.id = p.id
      order by p.created_at desc, p.id desc`,
    page,
    () => tx<{ count: number }[]>`select count(*) from public.campaigns where ${where}`,
  );
}

function notFound(id: string): ApiError {
  return new ApiError(404, 'CAMPAIGN_NOT_FOUND', `Campaign ${id} does not exist`, {
    field: 'id',
    value: id,
    constraint: 'an existing campaign',
  });
}

/**
 * The success envelope around JSON text from the database, sent as it is: a large answer built as JSON text
 * in SQL is not parsed into objects only to be serialized again. Typed as the route's 200 answer, which the
 * SQL that writes it is held to by the tests that validate every answer against the document.
 */
function successWithJsonText(c: Context, data: string) {
  return c.body(`{"success":true,"data":${data}}`, 200, {
    'content-type': 'application/json',
  }) as unknown as TypedResponse<never, 200, 'json'>;
}
