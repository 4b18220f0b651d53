// The revenue attribution analysis per campaign over a date range, once the route is served.
import type { Route } from '../router.ts';

export function RevenueAttribution(_: { route: Route }) {
  return null;
}
