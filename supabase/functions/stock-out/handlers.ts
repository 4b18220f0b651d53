/** stock-out: one call to public.stock_out as the caller, which allocates first-in-first-out. */
import type { Database } from '../_shared/db.ts';
import { inventoryArea as area } from '../_shared/errors.ts';
import type { Reply, RequestContext } from '../_shared/http.ts';
import { idempotencyKey } from '../_shared/idempotency.ts';
import { validate } from '../_shared/validation.ts';
import { stockOutBody } from './schemas.ts';

export function stockOutHandlers(db: Database) {
  return {
    async stockOut(ctx: RequestContext): Promise<Reply> {
      const body = validate(stockOutBody, await ctx.requiredBody(), area);
      const key = idempotencyKey(ctx.req, area);
      const [{ response }] = await db.asCaller(ctx.caller, area, (tx) =>
        tx<{ response: Record<string, unknown> }[]>`
          select public.stock_out(
            product_id => ${body.product_id}::uuid,
            quantity => ${body.quantity}::bigint,
            reference => ${body.reference ?? null},
            idempotency_key => ${key}
          ) as response`);
      return { body: response };
    },
  };
}
