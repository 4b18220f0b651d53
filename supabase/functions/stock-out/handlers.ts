/** stock-out: one call to public.stock_out as the caller, which allocates first-in-first-out. */
import type { Database } from '../_shared/db.ts';
import { inventoryArea as area } from '../_shared/errors.ts';
import type { Reply, RequestContext } from '../_shared/http.ts';
import { idempotencyKey } from '../_shared/idempotency.ts';
import type { stockOutBody } from './schemas.ts';

export function stockOutHandlers(db: Database) {
  return {
    async stockOut(ctx: RequestContext<{ body: typeof stockOutBody }>): Promise<Reply> {
      const body = ctx.input.body;
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
