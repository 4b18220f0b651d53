/** The store's settings, as the database holds them (private.store_time_zone, 00_platform_helpers.sql). */
import type { Database } from '../_shared/db.ts';
import { storeArea as area } from '../_shared/errors.ts';
import { type Ctx, ok } from '../_shared/http.ts';
import type * as routes from './routes.ts';

export function storeHandlers(db: Database) {
  return {
    async settings(c: Ctx<typeof routes.settings>) {
      const [settings] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<{ time_zone: string; today: string; now: Date }[]>`
          select private.store_time_zone() as time_zone, private.store_today()::text as today, private.now() as now`,
      );
      return ok(c, settings);
    },
  };
}
