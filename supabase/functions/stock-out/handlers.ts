/** stock-out: one call to public.stock_out as the caller, which allocates first-in-first-out. */
import type { z } from 'zod';
import type { stockOutResponse } from './responses.ts';
import type { Database } from '../_shared/db.ts';
import { inventoryArea as area } from '../_shared/errors.ts';
import type { Ctx } from '../_shared/http.ts';
import type * as routes from './routes.ts';
import { idempotencyKey } from '../_shared/idempotency.ts';

export function stockOutHandlers(db: Database) {
  return {
    async stockOut(c: Ctx<typeof routes.stockOut>) {
      const body = c.req.valid('json');
      const key = idempotencyKey(c.req.raw, area);
      const [{ response }] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<{ response: z.output<typeof stockOutResponse> }[]>`
          select public.stock_out(
            product_id => ${body.product_id}::uuid,
            quantity => ${body.quantity}::bigint,
            reference => ${body.reference ?? null},
            idempotency_key => ${key}
          ) as response`,
      );
      return c.json(response, 200);
    },
  };
}
