/**
 * store: what every screen needs to know about the store under /functions/v1/store: its time zone (an IANA
 * name, private.store_time_zone) and its today. Every day the API gives is a day there; instants are UTC
 * with `Z`, which a front end shows in this zone, whatever the browser's. For any signed-in caller.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { storeArea } from '../_shared/errors.ts';
import { type Dependencies, on, serveFunction } from '../_shared/http.ts';
import * as routes from './routes.ts';
import { storeHandlers } from './handlers.ts';

export function createHandler(deps: Dependencies) {
  const handlers = storeHandlers(deps.db);
  return serveFunction({
    name: 'store',
    title: 'Store',
    description: "The store's time zone and today: every day the API gives (order_date, attribution dates, " +
      'campaign dates) is a day in this zone; instants are ISO 8601 in UTC.',
    area: storeArea,
    endpoints: [
      on(routes.settings, handlers.settings),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
