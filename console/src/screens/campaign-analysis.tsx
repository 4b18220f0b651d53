// The campaign reads that arrive with the calendar routes: status history, the overlap calendar and the
// collaboration analysis.
import type { Route } from '../router.ts';
import { Empty } from '../components/load.tsx';

export function StatusHistory(_: { id: string; version: number }) {
  return null;
}

export function CampaignCalendar(_: { route: Route }) {
  return <Empty>The overlap calendar is not served by this back office yet.</Empty>;
}

export function Collaboration(_: { route: Route }) {
  return <Empty>The collaboration analysis is not served by this back office yet.</Empty>;
}
