/** stock-in: one call to public.stock_in or public.stock_in_batch as the caller, which does the change and the replay. */
import type { z } from 'zod';
import type { stockInBatchResponse, stockInResponse } from './responses.ts';
import type { Database } from '../_shared/db.ts';
import { inventoryArea as area } from '../_shared/errors.ts';
import type { Ctx } from '../_shared/http.ts';
import { idempotencyKey } from '../_shared/idempotency.ts';
import type { stockIn, stockInBatch } from './routes.ts';

export function stockInHandlers(db: Database) {
  return {
    async stockIn(c: Ctx<typeof stockIn>) {
      const body = c.req.valid('json');
      const key = idempotencyKey(c.req.raw, area);
      const [{ response }] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<{ response: z.output<typeof stockInResponse> }[]>`
          select public.stock_in(
            product_id => ${body.product_id}::uuid,
            quantity => ${body.quantity}::bigint,
            source => ${body.source ?? null},
            note => ${body.note ?? null},
            received_at => ${body.received_at ?? null}::timestamptz,
            idempotency_key => ${key},
            lot_number => ${body.lot_number ?? null},
            expires_on => ${body.expires_on ?? null}::date,
            unit_cost => ${body.unit_cost ?? null}::numeric
          ) as response`,
      );
      return c.json(response, 201);
    },

    async stockInBatch(c: Ctx<typeof stockInBatch>) {
      const body = c.req.valid('json');
      const key = idempotencyKey(c.req.raw, area);
      const [{ response }] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<{ response: z.output<typeof stockInBatchResponse> }[]>`
          select public.stock_in_batch(
            items => ${tx.json(body.items)},
            source => ${body.source ?? null},
            note => ${body.note ?? null},
            received_at => ${body.received_at ?? null}::timestamptz,
            idempotency_key => ${key}
          ) as response`,
      );
      return c.json(response, 201);
    },
  };
}
