/** stock-adjust: one call to public.stock_adjust as the caller, in product or record mode; its reasons' rules. */
import type { z } from 'zod';
import type { stockAdjustReasonsResponse, stockAdjustResponse } from './responses.ts';
import type { Database } from '../_shared/db.ts';
import { inventoryArea as area } from '../_shared/errors.ts';
import { type Ctx, ok } from '../_shared/http.ts';
import type * as routes from './routes.ts';
import { idempotencyKey } from '../_shared/idempotency.ts';

type Reason = z.output<typeof stockAdjustReasonsResponse>['data']['reasons'][number];

export function stockAdjustHandlers(db: Database) {
  return {
    async adjust(c: Ctx<typeof routes.adjust>) {
      const body = c.req.valid('json');
      const key = idempotencyKey(c.req.raw, area);
      const [{ response }] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<{ response: z.output<typeof stockAdjustResponse> }[]>`
          select public.stock_adjust(
            product_id => ${body.product_id ?? null}::uuid,
            inventory_id => ${body.inventory_id ?? null}::uuid,
            adjust_quantity => ${body.adjust_quantity}::bigint,
            reason => ${body.reason},
            reason_note => ${body.reason_note ?? null},
            source => ${body.source ?? null},
            idempotency_key => ${key}
          ) as response`,
      );
      return c.json(response, 200);
    },

    async reasons(c: Ctx<typeof routes.reasons>) {
      const reasons = await db.asCaller(
        c.var.caller,
        area,
        (tx) => tx<Reason[]>`select reason, direction, needs_note from public.stock_adjust_reasons`,
      );
      return ok(c, { reasons });
    },
  };
}
