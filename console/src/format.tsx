const integer = new Intl.NumberFormat('en-US');
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export const fmt = {
  int: (n: number | null | undefined) => (n === null || n === undefined ? '—' : integer.format(n)),
  money: (n: number | null | undefined) => (n === null || n === undefined ? '—' : money.format(n)),
  num: (n: number | null | undefined) => (n === null || n === undefined ? '—' : decimal.format(n)),
  pct: (n: number, digits = 1) => `${(n * 100).toFixed(digits)}%`,
  dateTime: (iso: string) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
  },
};

/** Days are UTC days, as the API counts them. */
export function todayUtc(offsetDays = 0) {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + offsetDays);
  return d.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export const LAYERS = ['site-wide', 'target-oriented', 'category-specific', 'general'] as const;
export type Layer = (typeof LAYERS)[number];
export const LAYER_LABELS: Record<Layer, string> = {
  'site-wide': 'Site-wide',
  'target-oriented': 'Target-oriented',
  'category-specific': 'Category-specific',
  general: 'General',
};

export const STATUSES = ['draft', 'active', 'paused', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof STATUSES)[number];
/** The moves the API allows (private.campaign_status_move_allowed). */
export const NEXT_STATUSES: Record<CampaignStatus, CampaignStatus[]> = {
  draft: ['active', 'cancelled'],
  active: ['paused', 'completed', 'cancelled'],
  paused: ['active', 'completed', 'cancelled'],
  completed: [],
  cancelled: [],
};
export const STATUS_VERBS: Record<CampaignStatus, string> = {
  draft: 'Back to draft',
  active: 'Activate',
  paused: 'Pause',
  completed: 'Complete',
  cancelled: 'Cancel campaign',
};

export function Badge({ kind, children }: { kind: string; children: string }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}
