/**
 * The orders list and one order with its goods. They read as the caller, so RLS decides what each one sees
 * (administrators: every order; a signed-in customer: their own), and the list's summary counts the orders the
 * way business health does, so a health figure and the list behind it agree for the same window and moment.
 * Placing an order and moving its status are one call each to their SQL function
 * (public.place_order, public.update_order_status in 30_orders/30_order_writes.sql), which checks the caller
 * and moves the stock.
 */
import type { z } from 'zod';
import { containsPattern, type Database, type Tx } from '../_shared/db.ts';
import { orderArea as area } from '../_shared/errors.ts';
import { type Ctx, ok, pageAnswer } from '../_shared/http.ts';
import type * as routes from './routes.ts';
import type { changedResponse, goods, movesResponse, order, summary } from './responses.ts';
import type { listQuery } from './schemas.ts';
import { ApiError } from '../_shared/errors.ts';
import { idempotencyKey } from '../_shared/idempotency.ts';

// Each row as the answer states it (responses.ts): the SQL below is held to it by the tests that validate
// every answer against the document.
type Order = z.output<typeof order> & { counted_until: string | null };
type Goods = { [K in keyof typeof goods]: z.output<(typeof goods)[K]> };
type Move = z.output<typeof movesResponse>['data']['moves'][number];
type Changed = { response: z.output<typeof changedResponse> };
type Summary = z.infer<typeof summary>;

const DEFAULT_PER_PAGE = 50;

/**
 * An order as the answers show it. `counted_until` (until when the order counts in the figures) is the
 * figures' rule kept on the row, not a fact of the order, so it is left out.
 */
function answered<T extends Order>({ counted_until: _countedUntil, ...order }: T) {
  return order;
}

export function orderHandlers(db: Database) {
  return {
    async read(c: Ctx<typeof routes.read>) {
      const { id } = c.req.valid('param');
      const [found] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<(Order & { customer_order_count: number; goods: Goods })[]>`
          select o.*, c.name as customer_name, c.email as customer_email,
                 (select count(*) from public.orders other where other.customer_id = o.customer_id)::integer
                   as customer_order_count,
                 private.order_goods(o.id) as goods
          from public.orders o
          left join public.customers c on c.id = o.customer_id
          where o.id = ${id}`,
      );
      if (!found) throw new ApiError(404, 'ORDER_NOT_FOUND', `Order ${id} does not exist`, { order_id: id });
      const { goods, ...order } = found;
      const steps = [
        ['placed', found.ordered_at],
        ['paid', found.paid_at],
        ['shipped', found.shipped_at],
        ['delivered', found.delivered_at],
        ['completed', found.completed_at],
        ['cancelled', found.cancelled_at],
        ['refunded', found.refunded_at],
      ] as const;
      const timeline = steps
        .filter((step): step is readonly [typeof step[0], string] => step[1] !== null)
        .map(([event, at]) => ({ event, at }))
        .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
      return ok(c, { ...answered(order), ...goods, timeline });
    },

    /** The status moves an order with goods may make, and what each does to them (public.order_status_moves). */
    async moves(c: Ctx<typeof routes.moves>) {
      const moves = await db.asCaller(
        c.var.caller,
        area,
        (tx) => tx<Move[]>`select from_status, to_status, goods from public.order_status_moves`,
      );
      return ok(c, { moves });
    },

    /** Places an order of lines, reserving them: public.place_order, which does the change and the replay. */
    async place(c: Ctx<typeof routes.place>) {
      const body = c.req.valid('json');
      const key = idempotencyKey(c.req.raw, area);
      const [{ response }] = await db.asCaller(c.var.caller, area, (tx) =>
        tx<Changed[]>`
          select public.place_order(
            customer_id => ${body.customer_id}::uuid,
            lines => ${tx.json(body.lines)},
            status => ${body.status ?? null},
            ordered_at => ${body.ordered_at ?? null}::timestamptz,
            idempotency_key => ${key}
          ) as response`);
      return c.json(response, 201);
    },

    /** Moves an order's status, and its goods with it: public.update_order_status. */
    async move(c: Ctx<typeof routes.move>) {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const [{ response }] = await db.asCaller(c.var.caller, area, (tx) =>
        tx<Changed[]>`
          select public.update_order_status(${id}::uuid, ${body.status}, ${body.restock ?? null}) as response`);
      return c.json(response, 200);
    },

    async list(c: Ctx<typeof routes.list>) {
      const query = c.req.valid('query');
      const page = query.page ?? 1;
      const perPage = query.per_page ?? DEFAULT_PER_PAGE;
      const asOf = query.as_of ?? new Date().toISOString();
      const { result, totals } = await db.asCaller(c.var.caller, area, (tx) => ordersPage(tx, query, asOf));
      return c.json({
        ...pageAnswer(result, page, perPage),
        summary: { as_of: new Date(asOf).toISOString(), ...totals },
      }, 200);
    },
  };
}

/**
 * A page of the orders list and the summary of every order it matches, as the list answers them: the
 * handler's query, also what `npm run bench` measures as the database's ceiling. The summary first (its
 * `orders` is the page's total), then the page.
 */
export async function ordersPage(tx: Tx, query: z.infer<typeof listQuery>, asOf: string) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? DEFAULT_PER_PAGE;
  const conditions = filters(tx, query, asOf);
  const { where, figures } = conditions;
  const kept = await keptTotals(tx, query);
  // A search's orders are found first (a few customers, then their orders by index) and only then filtered,
  // sorted and paged: as a filter of the whole list, the planner walks orders newest first looking for them.
  // A search that matches many orders on its own (`dem`; known to an administrator from the kept figures) is
  // the opposite case: walking the orders, each one's customer checked by its key as it comes, meets the page
  // at once, where finding them first would match every customer and gather all their orders.
  const alone = query.search === undefined || kept ? kept : await keptTotals(tx, { search: query.search });
  const customer = query.search !== undefined && (alone?.orders ?? 0) > BROAD_SEARCH_ORDERS ? 'each' : 'first';
  const orders = query.search === undefined ? tx`public.orders o` : searchedOrders(tx, query.search, customer);
  const totals = kept ?? await summed(tx, orders, conditions);
  const direction = query.sort_order === 'asc' ? tx`asc` : tx`desc`;
  // The page first, then its customers: joined before the limit, every matching order would be.
  // With with_lines, each order's lines as its page shows them (an export of one row per line).
  const lines = query.with_lines ? tx`, private.order_goods(o.id) -> 'lines' as lines` : tx``;
  const rows = await tx<Order[]>`
    select o.*, c.name as customer_name, c.email as customer_email ${lines}
    from (
      select o.*
      from ${orders} ${figures}
      where ${where}
      order by ${tx(query.sort_by ?? 'ordered_at')} ${direction}, o.id ${direction}
      limit ${perPage} offset ${(page - 1) * perPage}
    ) o
    left join public.customers c on c.id = o.customer_id
    order by o.${tx(query.sort_by ?? 'ordered_at')} ${direction}, o.id ${direction}`;
  return { result: { rows: rows.map(answered), totalCount: totals.orders }, totals };
}

/** Past this many matching orders a search is walked newest first rather than found first. */
const BROAD_SEARCH_ORDERS = 20_000;

/**
 * The summary from the kept figures (30_orders/50_order_list_figures.sql), where they answer it exactly: every order of
 * whole store days up to now or of all time, or a search's over all time, as of now, with no other filter.
 * Undefined otherwise, or when the database says they cannot (a caller who does not see every order).
 */
async function keptTotals(tx: Tx, query: z.infer<typeof listQuery>): Promise<Omit<Summary, 'as_of'> | undefined> {
  if (query.as_of !== undefined || query.status !== undefined || query.figure !== undefined) return undefined;
  if (query.customer_id !== undefined) return undefined;
  const pattern = query.search === undefined ? null : containsPattern(query.search);
  const [from, before] = [query.ordered_from ?? null, query.ordered_before ?? null];
  const [{ summary }] = await tx<{ summary: Omit<Summary, 'as_of'> | null }[]>`
    select private.kept_orders_summary(${from}::timestamptz, ${before}::timestamptz, ${pattern}::text) as summary`;
  return summary ?? undefined;
}

/**
 * The list's filters as SQL over `o`, and each order's figures at `as_of` as business health reads them
 * (`k`: counted, completed, cancelled, refunded; private.order_figures_at): the summary counts by them, and
 * `figure` lists the orders one counts.
 */
function filters(tx: Tx, query: z.infer<typeof listQuery>, asOf: string) {
  const figures = tx`cross join lateral private.order_figures_at(${asOf}::timestamptz, o.counted_until,
    o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at) k`;
  const where = tx`
    ${query.ordered_from === undefined ? tx`true` : tx`o.ordered_at >= ${query.ordered_from}::timestamptz`}
    and ${query.ordered_before === undefined ? tx`true` : tx`o.ordered_at < ${query.ordered_before}::timestamptz`}
    and ${query.status === undefined ? tx`true` : tx`o.status = ${query.status}`}
    and ${query.figure === undefined ? tx`true` : tx`k.${tx(query.figure)}`}
    and ${query.customer_id === undefined ? tx`true` : tx`o.customer_id = ${query.customer_id}::uuid`}`;
  return { where, figures };
}

/** The summary summed from the matching orders themselves (`orders`), at any moment and under any filter. */
async function summed(tx: Tx, orders: ReturnType<typeof searchedOrders>, conditions: ReturnType<typeof filters>) {
  const { where, figures } = conditions;
  const [totals] = await tx<Omit<Summary, 'as_of'>[]>`
    select count(*) as orders,
           count(*) filter (where k.counted) as counted_orders,
           coalesce(sum(o.total_amount) filter (where k.counted), 0) as revenue,
           private.average_order_value(sum(o.total_amount) filter (where k.counted), count(*) filter (where k.counted))
             as average_order_value,
           count(*) filter (where k.completed) as completed,
           count(*) filter (where k.cancelled) as cancelled,
           count(*) filter (where k.refunded) as refunded,
           count(distinct o.customer_id) as customers
    from ${orders} ${figures}
    where ${where}`;
  return totals;
}

/** The orders a search names, as `o`: found first (`offset 0` keeps the subquery apart), or walked. */
function searchedOrders(tx: Tx, text: string, customer: 'first' | 'each') {
  return customer === 'first'
    ? tx`(select * from public.orders o where ${searched(tx, text)} offset 0) o`
    : tx`(select * from public.orders o where ${searched(tx, text, 'each')}) o`;
}

/**
 * The orders a search names: the order itself, by its id or the reference the console shows (the id's first
 * 8 hexadecimal digits), or its customer's name or e-mail containing the text (private.customer_matches). The
 * id by its primary key (a reference is a range of ids); the customers found first by their trigram indexes
 * (private.customers_matching), or, walking `each` order, its customer looked up by its key.
 */
function searched(tx: Tx, text: string, customer: 'first' | 'each' = 'first') {
  const pattern = containsPattern(text);
  const customers = customer === 'first'
    ? tx`o.customer_id in (select private.customers_matching(${pattern}))`
    : tx`exists (select 1 from public.customers c
                 where c.id = o.customer_id and private.customer_matches(c.search_name, c.search_email, ${pattern}))`;
  const reference = /^#?([0-9a-f]{8})$/i.exec(text)?.[1]?.toLowerCase();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) return tx`o.id = ${text}::uuid`;
  if (reference) {
    return tx`(o.id between ${`${reference}-0000-0000-0000-000000000000`}::uuid
                        and ${`${reference}-ffff-ffff-ffff-ffffffffffff`}::uuid or ${customers})`;
  }
  return customers;
}
