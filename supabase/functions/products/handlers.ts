/**
 * The products operations. Reads run as the caller, so the tables' RLS decides what each one sees
 * (customers: live products, and only the lots, stock-ins and movements they made); each write is one
 * call to its SQL function, which checks the caller and does the whole change in one transaction.
 */
import type { z } from 'zod';
import { containsPattern, type Database, pageOf, type Tx } from '../_shared/db.ts';
import { ApiError, inventoryArea as area } from '../_shared/errors.ts';
import { type Ctx, ok, pageAnswer } from '../_shared/http.ts';
import type * as routes from './routes.ts';
import type { expiringLot, lot, lotOrder, movement, product, stockInRecord, summaryResponse } from './responses.ts';
import { EXPIRING_WITHIN_DAYS } from './schemas.ts';

// Each row as the answer states it (responses.ts): the SQL below is held to it by the tests that validate
// every answer against the document.
type Product = z.output<typeof product>;
type Lot = z.output<typeof lot>;
type Movement = z.output<typeof movement>;
type StockIn = z.output<typeof stockInRecord>;
type ExpiringLot = z.output<typeof expiringLot>;
type LotOrder = z.output<typeof lotOrder>;
type StockSummary = z.output<typeof summaryResponse>['data'];
type Counted<T> = T & { total_count: number };

const DEFAULT_PER_PAGE = 50;

export function productHandlers(db: Database) {
  return {
    async list(c: Ctx<typeof routes.list>) {
      const query = c.req.valid('query');
      const { page, perPage } = paging(query);
      const result = await db.asCaller(c.var.caller, area, (tx) => {
        const search = query.search ? containsPattern(query.search) : undefined;
        const where = tx`
          ${query.include_deleted ? tx`true` : tx`deleted_at is null`}
          and ${search === undefined ? tx`true` : tx`(sku ilike ${search} or name ilike ${search})`}
          and ${query.low_stock === undefined ? tx`true` : tx`low_stock = ${query.low_stock}`}
          and ${query.stock_status === undefined ? tx`true` : tx`stock_status = ${query.stock_status}`}
          and ${query.is_active === undefined ? tx`true` : tx`is_active = ${query.is_active}`}`;
        // Names and SKUs in natural order (2 before 10); the low-stock list, unless sorted otherwise, by
        // how far each product is below its reorder level, the most urgent first. A search names the product
        // whose SKU it is first: a clerk typing a SKU finds it however many others contain it.
        const natural = (column: string) =>
          column === 'sku' || column === 'name' ? tx`${tx(column)} collate private.natural_order` : tx`${tx(column)}`;
        const exactFirst = query.search && !query.sort_by ? tx`lower(sku) = lower(${query.search}) desc,` : tx``;
        const order = query.sort_by
          ? tx`${natural(query.sort_by)} ${
            query.sort_order === 'desc' ? tx`desc` : tx`asc`
          }, sku collate private.natural_order, id`
          : query.low_stock || query.stock_status === 'low_stock'
          ? tx`available_stock - reorder_level, sku collate private.natural_order, id`
          : tx`sku collate private.natural_order, id`;
        return pageOf(
          tx<Counted<Product>[]>`
            select *, count(*) over () as total_count
            from public.product_stock
            where ${where}
            order by ${exactFirst} ${order}
            limit ${perPage} offset ${(page - 1) * perPage}`,
          page,
          () => tx<{ count: number }[]>`select count(*) from public.product_stock where ${where}`,
        );
      });
      return c.json(pageAnswer(result, page, perPage), 200);
    },

    async read(c: Ctx<typeof routes.read>) {
      const { id } = c.req.valid('param');
      const { product, lots, unitsSold } = await db.asCaller(c.var.caller, area, async (tx) => {
        const product = await visibleProduct(tx, id);
        // In the order a sale draws them (private.draw_lots): oldest received first, or for a product set to
        // `fefo` the first to expire (those without an expiry last), then the oldest.
        const lots = await tx<Lot[]>`
          select id as inventory_id, quantity, available_quantity, source, note, received_at, created_at,
                 lot_number, expires_on, unit_cost
          from public.inventory_records
          where product_id = ${id}
          order by case when ${
          product.allocation === 'fefo'
        } then expires_on end nulls last, received_at, created_at, id`;
        const [unitsSold] = await tx<{ last_7_days: number; last_30_days: number }[]>`
          select private.units_sold(${id}, 7) as last_7_days, private.units_sold(${id}, 30) as last_30_days`;
        return { product, lots, unitsSold };
      });
      return ok(c, { ...product, units_sold: unitsSold, lots });
    },

    async movements(c: Ctx<typeof routes.movements>) {
      const { id } = c.req.valid('param');
      const query = c.req.valid('query');
      const { page, perPage } = paging(query);
      const result = await db.asCaller(c.var.caller, area, async (tx) => {
        await visibleProduct(tx, id);
        const where = tx`product_id = ${id}
          and ${query.operation === undefined ? tx`true` : tx`operation = ${query.operation}`}`;
        // Newest first: the ledger's identity orders the rows as they were written. The lot's number and
        // expiry as the caller may see the lot (RLS), null otherwise.
        return pageOf(
          tx<Counted<Movement>[]>`
            select m.*, r.lot_number, r.expires_on
            from (
              select id, operation_id, operation, inventory_record_id as inventory_id, delta, stock_before,
                     stock_after, record_available_before, record_available_after, source, reason, reason_note,
                     reference, operator_id, private.operator_email(operator_id) as operator_email, operator_role,
                     created_at, count(*) over () as total_count
              from public.stock_movements
              where ${where}
              order by id desc
              limit ${perPage} offset ${(page - 1) * perPage}
            ) m
              left join public.inventory_records r on r.id = m.inventory_id
            order by m.id desc`,
          page,
          () => tx<{ count: number }[]>`select count(*) from public.stock_movements where ${where}`,
        );
      });
      return c.json(pageAnswer(result, page, perPage), 200);
    },

    async stockIns(c: Ctx<typeof routes.stockIns>) {
      const { id } = c.req.valid('param');
      const { page, perPage } = paging(c.req.valid('query'));
      const result = await db.asCaller(c.var.caller, area, async (tx) => {
        await visibleProduct(tx, id);
        // Newest recorded first (created_at), whatever date the goods were received on.
        return pageOf(
          tx<Counted<StockIn>[]>`
            select id, inventory_record_id as inventory_id, quantity, source, note, received_at, operator_id,
                   private.operator_email(operator_id) as operator_email, operator_role, created_at, lot_number,
                   expires_on, count(*) over () as total_count
            from public.stock_in_history
            where product_id = ${id}
            order by created_at desc, id desc
            limit ${perPage} offset ${(page - 1) * perPage}`,
          page,
          () => tx<{ count: number }[]>`select count(*) from public.stock_in_history where product_id = ${id}`,
        );
      });
      return c.json(pageAnswer(result, page, perPage), 200);
    },

    /**
     * The recall question: which orders, so which customers, received units of a lot, newest first. Read as the
     * caller: the lots orders drew are an administrator's to see (RLS), so anyone else gets an empty list.
     */
    async lotOrders(c: Ctx<typeof routes.lotOrders>) {
      const { id, lot } = c.req.valid('param');
      const { page, perPage } = paging(c.req.valid('query'));
      const result = await db.asCaller(c.var.caller, area, async (tx) => {
        await visibleProduct(tx, id);
        const drawn = tx`
          from public.order_line_lots d
          join public.order_lines l on l.id = d.order_line_id
          join public.orders o on o.id = l.order_id
          where d.inventory_record_id = ${lot} and l.product_id = ${id}`;
        return pageOf(
          tx<Counted<LotOrder>[]>`
            select o.id as order_id, o.status, o.ordered_at, o.shipped_at, o.customer_id, c.name as customer_name,
                   c.email as customer_email, x.quantity, x.returned_quantity, x.total_count
            from (
              select l.order_id, sum(d.quantity)::integer as quantity, sum(d.returned_quantity)::integer as returned_quantity,
                     count(*) over () as total_count
              ${drawn}
              group by l.order_id
            ) x
            join public.orders o on o.id = x.order_id
            left join public.customers c on c.id = o.customer_id
            order by o.shipped_at desc nulls last, o.id desc
            limit ${perPage} offset ${(page - 1) * perPage}`,
          page,
          () => tx<{ count: number }[]>`select count(distinct l.order_id) as count ${drawn}`,
        );
      });
      return c.json(pageAnswer(result, page, perPage), 200);
    },

    async expiring(c: Ctx<typeof routes.expiring>) {
      const query = c.req.valid('query');
      const within = query.within_days ?? EXPIRING_WITHIN_DAYS;
      const { page, perPage } = paging(query);
      const result = await db.asCaller(c.var.caller, area, (tx) => {
        const expiring = expiringLots(tx, within);
        return pageOf(
          tx<Counted<ExpiringLot>[]>`
            select r.id as inventory_id, r.product_id, p.sku, p.name, r.lot_number, r.expires_on,
                   r.expires_on - private.store_today() as days_left, r.available_quantity,
                   count(*) over () as total_count
            ${expiring}
            order by r.expires_on, p.sku collate private.natural_order, r.received_at, r.id
            limit ${perPage} offset ${(page - 1) * perPage}`,
          page,
          () => tx<{ count: number }[]>`select count(*) ${expiring}`,
        );
      });
      return c.json(pageAnswer(result, page, perPage), 200);
    },

    async summary(c: Ctx<typeof routes.summary>) {
      const [summary] = await db.asCaller(c.var.caller, area, (tx) =>
        tx<StockSummary[]>`
          select count(*) filter (where s.stock_status = 'out_of_stock')::integer as out_of_stock,
                 count(*) filter (where s.stock_status = 'low_stock')::integer as low_stock,
                 (select count(*)::integer ${expiringLots(tx, EXPIRING_WITHIN_DAYS)}) as expiring_lots,
                 ${EXPIRING_WITHIN_DAYS}::integer as within_days
          from public.product_stock s
          where s.deleted_at is null and s.is_active`);
      return ok(c, summary);
    },

    async create(c: Ctx<typeof routes.create>) {
      const body = c.req.valid('json');
      const product = await db.asCaller(c.var.caller, area, async (tx) => {
        const [{ id }] = await tx<{ id: string }[]>`
          select id from public.create_product(${tx.json(body)})`;
        return await visibleProduct(tx, id);
      });
      return c.json({ success: true as const, data: product, message: `Product ${product.sku} created` }, 201);
    },

    async update(c: Ctx<typeof routes.update>) {
      const { id } = c.req.valid('param');
      const changes = c.req.valid('json');
      const product = await db.asCaller(c.var.caller, area, async (tx) => {
        await tx`select 1 from public.update_product(${id}::uuid, ${tx.json(changes)})`;
        return await visibleProduct(tx, id);
      });
      return c.json({ success: true as const, data: product, message: `Product ${product.sku} updated` }, 200);
    },

    async remove(c: Ctx<typeof routes.remove>) {
      const { id } = c.req.valid('param');
      const [{ sku }] = await db.asCaller(
        c.var.caller,
        area,
        (tx) => tx<{ sku: string }[]>`select sku from public.delete_product(${id}::uuid)`,
      );
      return c.json({ success: true as const, message: `Product ${sku} deleted` }, 200);
    },
  };
}

/**
 * `from ... where` of the lots the caller may see (RLS) with stock left, of products not deleted, expired or
 * expiring within `within` store days: the expiring list's rows and the summary's count alike.
 */
function expiringLots(tx: Tx, within: number) {
  return tx`
    from public.inventory_records r
      join public.products p on p.id = r.product_id and p.deleted_at is null
    where r.available_quantity > 0 and r.expires_on <= private.store_today() + ${within}::integer`;
}

/** The product as the caller may see it (RLS: a customer does not see a deleted one), or 404. */
async function visibleProduct(tx: Tx, id: string): Promise<Product> {
  const [product] = await tx<Product[]>`select * from public.product_stock where id = ${id}`;
  if (!product) {
    throw new ApiError(404, 'PRODUCT_NOT_FOUND', `Product ${id} does not exist`, { product_id: id });
  }
  return product;
}

function paging(query: { page?: number; per_page?: number }) {
  return { page: query.page ?? 1, perPage: query.per_page ?? DEFAULT_PER_PAGE };
}
