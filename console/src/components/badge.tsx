/** A short coloured label: a status, a state, a verdict. */
import { campaignState, campaignStateLabel, type CampaignStatus } from '../format/labels.ts';

export function Badge({ kind, children }: { kind: string; children: string }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}

/** A campaign's badge: its state today (scheduled or its status). */
export function CampaignBadge({ campaign }: { campaign: { status: CampaignStatus; start_date: string } }) {
  return <Badge kind={campaignState(campaign)}>{campaignStateLabel(campaign)}</Badge>;
}
