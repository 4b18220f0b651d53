import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { Chart } from '../components/chart.tsx';
import { ConfirmButton } from '../components/confirm.tsx';
import { Field, FormError, Pager, SelectField, useForm } from '../components/form.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader, Tabs } from '../components/screen.tsx';
import { Badge, fmt, layerLabel, NEXT_STATUSES, statusVerb, STATUSES, todayUtc, addDays, type CampaignStatus } from '../format.tsx';
import { href, useParams, type Route } from '../router.ts';
import { CampaignCalendar, Collaboration, StatusHistory } from './campaign-analysis.tsx';

type Campaign = Ok<paths['/campaigns/{id}']['get']>['data'];
const PAGE_SIZE = 20;

export function CampaignsScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const [params] = useParams(route);
  const tab = params.tab === 'calendar' || params.tab === 'collaboration' ? params.tab : 'list';
  return (
    <section>
      <ScreenHeader title="Campaigns" lead="Plan, edit and run campaigns; see where they overlap.">
        {isAdmin && <a class="button primary" href={href('campaigns', { tab: 'list', edit: 'new' })}>New campaign</a>}
      </ScreenHeader>
      <Tabs label="Campaign views" current={tab} tabs={[
        { id: 'list', label: 'List', href: href('campaigns', { tab: 'list' }) },
        { id: 'calendar', label: 'Calendar', href: href('campaigns', { tab: 'calendar' }) },
        { id: 'collaboration', label: 'Collaboration', href: href('campaigns', { tab: 'collaboration' }) },
      ]} />
      {tab === 'list' && <CampaignList route={route} isAdmin={isAdmin} />}
      {tab === 'calendar' && <CampaignCalendar route={route} />}
      {tab === 'collaboration' && <Collaboration route={route} />}
    </section>
  );
}

function CampaignList({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.page) || 1);
  const status = STATUSES.includes(params.status as CampaignStatus) ? (params.status as CampaignStatus) : undefined;
  const [search, setSearch] = useState(params.search ?? '');
  const [version, setVersion] = useState(0);

  // Typing filters after a pause, replacing the URL rather than stacking history entries.
  useEffect(() => {
    if ((params.search ?? '') === search) return;
    const timer = setTimeout(() => setParams({ search: search || undefined, page: undefined }, true), 300);
    return () => clearTimeout(timer);
  }, [search]);
  useEffect(() => setSearch(params.search ?? ''), [params.search]);

  const list = useLoad(
    (signal) => api('get', '/campaigns', {
      query: { page: String(page), limit: String(PAGE_SIZE), status, search: params.search, start_date: params.from, end_date: params.to },
      signal,
    }).then((r) => r.data),
    [page, status, params.search, params.from, params.to, version],
  );
  const stats = useLoad((signal) => api('get', '/campaigns/stats', { signal }).then((r) => r.data), [version]);
  const changed = () => setVersion((v) => v + 1);

  return (
    <div class="stack">
      <Loaded load={stats}>
        {(s) => (
          <ul class="stat-strip" aria-label="Campaign counts">
            <li><span class="label">All</span> {fmt.int(s.total_campaigns)}</li>
            <li><span class="label">Active</span> {fmt.int(s.active_campaigns)}</li>
            <li><span class="label">Draft</span> {fmt.int(s.draft_campaigns)}</li>
            <li><span class="label">Paused</span> {fmt.int(s.paused_campaigns)}</li>
            <li><span class="label">Completed</span> {fmt.int(s.completed_campaigns)}</li>
            <li><span class="label">Budget (active)</span> {fmt.money(s.active_budget)}</li>
          </ul>
        )}
      </Loaded>
      {params.edit === 'new' && isAdmin && (
        <CampaignForm onSaved={(c) => { changed(); setParams({ edit: undefined, id: c.id }); }} onCancel={() => setParams({ edit: undefined })} />
      )}
      {params.id && (
        <CampaignDetail key={params.id} id={params.id} isAdmin={isAdmin} editing={params.edit === params.id}
          onEdit={(on) => setParams({ edit: on ? params.id : undefined })}
          onChanged={changed} onClose={() => setParams({ id: undefined, edit: undefined })} />
      )}
      <form class="filters" role="search" aria-label="Filter campaigns" onSubmit={(e) => { e.preventDefault(); setParams({ search: search || undefined, page: undefined }); }}>
        <Field label="Search" name="search" type="search" value={search} placeholder="Name or description" onInput={(e) => setSearch(e.currentTarget.value)} />
        <SelectField label="Status" name="status" value={status ?? ''} onChange={(x) => setParams({ status: x || undefined, page: undefined })}
          options={[{ value: '', label: 'Any status' }, ...STATUSES.map((s) => ({ value: s, label: s }))]} />
        <Field label="Running from" name="from" type="date" value={params.from ?? ''} onChange={(e) => setParams({ from: e.currentTarget.value || undefined, page: undefined })} />
        <Field label="Running to" name="to" type="date" value={params.to ?? ''} onChange={(e) => setParams({ to: e.currentTarget.value || undefined, page: undefined })} />
      </form>
      <Loaded load={list} label="Loading campaigns…">
        {(data) => data.campaigns.length === 0 ? (
          <Empty>{params.search || status || params.from || params.to ? 'No campaign matches these filters.' : 'There are no campaigns yet.'}</Empty>
        ) : (
          <>
            <div class="table-wrap">
              <table class="campaigns">
                <caption class="visually-hidden">Campaigns, newest first</caption>
                <thead>
                  <tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Starts</th><th scope="col">Ends</th><th scope="col" class="num">Budget</th></tr>
                </thead>
                <tbody>
                  {data.campaigns.map((c) => (
                    <tr key={c.id} aria-current={c.id === params.id ? 'true' : undefined}>
                      <td><a href={href('campaigns', { ...params, id: c.id, edit: undefined })}>{c.name}</a></td>
                      <td><Badge kind={c.status}>{c.status}</Badge></td>
                      <td>{c.start_date}</td>
                      <td>{c.end_date}</td>
                      <td class="num">{fmt.money(c.budget)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={data.pagination.current_page} totalPages={data.pagination.total_pages}
              count={`${fmt.int(data.pagination.total_count)} campaigns`} label="campaigns pages" onPage={(p) => setParams({ page: p })} />
          </>
        )}
      </Loaded>
    </div>
  );
}

function CampaignDetail({ id, isAdmin, editing, onEdit, onChanged, onClose }: {
  id: string; isAdmin: boolean; editing: boolean; onEdit: (on: boolean) => void; onChanged: () => void; onClose: () => void;
}) {
  const [version, setVersion] = useState(0);
  const campaign = useLoad((signal) => api('get', '/campaigns/{id}', { path: { id }, signal }).then((r) => r.data), [id, version]);
  const refresh = () => { setVersion((v) => v + 1); onChanged(); };
  return (
    <section class="card detail" aria-labelledby="campaign-title">
      <Loaded load={campaign} label="Loading the campaign…">
        {(c) => (
          <>
            <div class="detail-head">
              <h2 id="campaign-title">{c.name} <Badge kind={c.status}>{c.status}</Badge></h2>
              <button type="button" class="link" onClick={onClose}>Close</button>
            </div>
            {editing && isAdmin ? (
              <CampaignForm campaign={c} onSaved={() => { onEdit(false); refresh(); }} onCancel={() => onEdit(false)} />
            ) : (
              <>
                <dl class="facts">
                  <div><dt>Dates</dt><dd>{c.start_date} → {c.end_date}</dd></div>
                  <div><dt>Type</dt><dd><code>{c.campaign_type}</code> · {layerLabel(c.attribution_layer)}</dd></div>
                  <div><dt>Weight · priority</dt><dd>{c.attribution_weight.toFixed(2)} · {c.priority_score}</dd></div>
                  <div><dt>Budget</dt><dd>{fmt.money(c.budget)}</dd></div>
                  {c.target_audience && <div><dt>Audience</dt><dd>{c.target_audience}</dd></div>}
                  {c.description && <div class="wide"><dt>Description</dt><dd>{c.description}</dd></div>}
                </dl>
                {isAdmin && <StatusActions campaign={c} onEdit={() => onEdit(true)} onChanged={refresh} />}
              </>
            )}
            <div class="two-columns">
              <CampaignMetrics id={c.id} version={version} />
              <StatusHistory id={c.id} version={version} />
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}

/** What a final move does, said before it is made (docs/campaigns.md: completed and cancelled campaigns are history). */
const FINAL_MOVE_CONSEQUENCES: Partial<Record<CampaignStatus, string>> = {
  completed: 'It counts for attribution up to today and on no later day, its settings are fixed, and it cannot be made active again.',
  cancelled: 'It counts for attribution up to today and on no later day, its settings are fixed, and it cannot be made active again.',
};

/**
 * The status moves the campaign allows. A final one (complete, cancel) asks first, naming what it does;
 * the others act at once. Each move says what it did, where focus goes, with an undo when the move can
 * be taken back (pause and activate).
 */
function StatusActions({ campaign, onEdit, onChanged }: { campaign: Campaign; onEdit: () => void; onChanged: () => void }) {
  const [pending, setPending] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState<{ from: CampaignStatus; to: CampaignStatus; at: number } | null>(null);
  const said = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (done) said.current?.focus();
  }, [done]);
  const move = async (to: CampaignStatus, from: CampaignStatus = campaign.status) => {
    await api('put', '/campaigns/{id}', { path: { id: campaign.id }, body: { status: to } });
    setDone({ from, to, at: Date.now() });
    onChanged();
  };
  const moveNow = async (to: CampaignStatus, from?: CampaignStatus) => {
    setPending(to);
    setError('');
    try {
      await move(to, from);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setPending('');
    }
  };
  const undoable = done && campaign.status === done.to && NEXT_STATUSES[done.to].includes(done.from);
  return (
    <div class="actions" role="group" aria-label="Campaign actions">
      <button type="button" onClick={onEdit}>Edit</button>
      {NEXT_STATUSES[campaign.status].map((s) =>
        FINAL_MOVE_CONSEQUENCES[s] ? (
          <ConfirmButton key={s} label={statusVerb(s)} disabled={!!pending} yes={`Yes, ${statusVerb(s).toLowerCase()}`}
            question={`${statusVerb(s)} “${campaign.name}”? ${FINAL_MOVE_CONSEQUENCES[s]}`} onConfirm={() => move(s)} />
        ) : (
          <button key={s} type="button" class={s === 'active' ? 'primary' : ''} disabled={!!pending} onClick={() => moveNow(s)}>
            {pending === s ? 'Saving…' : statusVerb(s)}
          </button>
        )
      )}
      {done && (
        <p key={done.at} class="state success" role="status" tabIndex={-1} ref={said}>
          “{campaign.name}” is now {done.to}.{' '}
          {undoable && (
            <button type="button" class="link" disabled={!!pending} onClick={() => moveNow(done.from, done.to)}>
              Undo ({statusVerb(done.from).toLowerCase()})
            </button>
          )}
        </p>
      )}
      {error && <p class="state error" role="alert">{error}</p>}
    </div>
  );
}

function CampaignMetrics({ id, version }: { id: string; version: number }) {
  const metrics = useLoad((signal) => api('get', '/campaigns/{id}/metrics', { path: { id }, signal }).then((r) => r.data), [id, version]);
  return (
    <section aria-labelledby="metrics-title">
      <h3 id="metrics-title">Attributed revenue</h3>
      <Loaded load={metrics}>
        {(m) => <MetricsView m={m} />}
      </Loaded>
    </section>
  );
}

function MetricsView({ m }: { m: Ok<paths['/campaigns/{id}/metrics']['get']>['data'] }) {
  const config = useMemo(() => ({
    type: 'line' as const,
    data: {
      labels: m.daily_attribution.map((d) => d.date),
      datasets: [{
        label: 'Attributed revenue',
        data: m.daily_attribution.map((d) => d.attributed_amount),
        borderColor: '#1f4f9e',
        backgroundColor: 'rgba(31, 79, 158, 0.15)',
        fill: true,
        pointRadius: 0,
      }],
    },
    options: { plugins: { legend: { display: false } }, scales: { x: { ticks: { maxTicksLimit: 8 } } } },
  }), [m]);
  return (
    <>
      <p>
        {fmt.money(m.metrics.attributed_revenue)} over {m.metrics.attribution_days} days (avg {fmt.money(m.metrics.avg_daily_revenue)} a day) ·{' '}
        {m.metrics.collaboration_campaigns} campaigns alongside · competition <Badge kind={`impact-${m.metrics.competition_intensity}`}>{m.metrics.competition_intensity}</Badge>
      </p>
      {m.daily_attribution.length === 0 ? <Empty>It has not counted on any day yet (it was never active, or starts later).</Empty> : (
        <Chart config={config} height={200} label={`Daily attributed revenue over ${m.daily_attribution.length} days`}
          table={{ caption: 'Daily attribution', columns: ['Date', 'Amount', 'Share (%)'], rows: m.daily_attribution.map((d) => [d.date, fmt.money(d.attributed_amount), d.attribution_percentage]) }} />
      )}
    </>
  );
}

type CampaignTypeOption = { value: string; label: string };

function CampaignForm({ campaign, onSaved, onCancel }: { campaign?: Campaign; onSaved: (c: Campaign) => void; onCancel: () => void }) {
  const form = useForm({
    name: campaign?.name ?? '',
    campaign_type: campaign?.campaign_type ?? '',
    start_date: campaign?.start_date ?? todayUtc(1),
    end_date: campaign?.end_date ?? addDays(todayUtc(1), 13),
    budget: campaign?.budget !== undefined && campaign?.budget !== null ? String(campaign.budget) : '',
    attribution_weight: campaign ? String(campaign.attribution_weight) : '',
    priority_score: campaign ? String(campaign.priority_score) : '',
    target_audience: campaign?.target_audience ?? '',
    description: campaign?.description ?? '',
  });
  const types = useLoad(async (signal) => {
    const groups = (await api('get', '/campaign-types/groups', { signal })).data;
    // A campaign takes an active type of any layer but general (the catalogue's catch-all).
    return (['site-wide', 'target-oriented', 'category-specific'] as const).flatMap((layer) =>
      groups[layer].types.map((t): CampaignTypeOption => ({ value: t.type_code, label: `${t.display_name_zh} (${t.type_code}, ${layerLabel(layer)})` })));
  }, []);
  const v = form.values;
  const num = (s: string) => (s.trim() === '' ? undefined : Number(s));
  const text = (s: string) => (s.trim() === '' ? null : s);

  return (
    <form class="card form" ref={form.formRef} noValidate aria-labelledby="campaign-form-title" onSubmit={(e) => {
      e.preventDefault();
      form.submit(async () => {
        const common = {
          name: v.name,
          start_date: v.start_date,
          end_date: v.end_date,
          budget: num(v.budget),
          attribution_weight: num(v.attribution_weight),
          priority_score: num(v.priority_score),
          target_audience: text(v.target_audience),
          description: text(v.description),
        };
        const saved = campaign
          ? (await api('put', '/campaigns/{id}', { path: { id: campaign.id }, body: common })).data
          : (await api('post', '/campaigns', { body: { ...common, campaign_type: v.campaign_type } })).data;
        onSaved(saved);
      });
    }}>
      <h2 id="campaign-form-title">{campaign ? `Edit “${campaign.name}”` : 'New campaign'}</h2>
      {!campaign && <p class="muted">A new campaign starts as a draft; activate it to make it count in attribution.</p>}
      <FormError message={form.formError} />
      <div class="grid">
        <Field label="Name" name="name" value={v.name} error={form.errors.name} onInput={(e) => form.set('name', e.currentTarget.value)} />
        {campaign ? (
          <Field label="Campaign type" name="campaign_type" value={campaign.campaign_type} disabled hint="The type and its layer never change." />
        ) : (
          <SelectField label="Campaign type" name="campaign_type" value={v.campaign_type} error={form.errors.campaign_type ?? (types.status === 'error' ? types.error.message : undefined)}
            onChange={(x) => form.set('campaign_type', x)}
            options={[{ value: '', label: types.status === 'loading' ? 'Loading types…' : 'Choose a type' }, ...(types.data ?? [])]} />
        )}
        <Field label="Start date" name="start_date" type="date" value={v.start_date} error={form.errors.start_date} onInput={(e) => form.set('start_date', e.currentTarget.value)} />
        <Field label="End date" name="end_date" type="date" value={v.end_date} error={form.errors.end_date} onInput={(e) => form.set('end_date', e.currentTarget.value)} />
        <Field label="Budget" name="budget" inputMode="decimal" value={v.budget} error={form.errors.budget} onInput={(e) => form.set('budget', e.currentTarget.value)} />
        <Field label="Attribution weight" name="attribution_weight" inputMode="decimal" value={v.attribution_weight} error={form.errors.attribution_weight}
          hint={campaign ? '0 to 9.99' : 'Empty: the type\'s default (0 to 9.99)'} onInput={(e) => form.set('attribution_weight', e.currentTarget.value)} />
        <Field label="Priority" name="priority_score" inputMode="numeric" value={v.priority_score} error={form.errors.priority_score}
          hint={campaign ? '0 to 100' : 'Empty: the type\'s default (0 to 100)'} onInput={(e) => form.set('priority_score', e.currentTarget.value)} />
        <Field label="Target audience" name="target_audience" value={v.target_audience} error={form.errors.target_audience} onInput={(e) => form.set('target_audience', e.currentTarget.value)} />
      </div>
      <Field label="Description" name="description" error={form.errors.description}>
        <textarea id="f-description" name="description" rows={2} value={v.description} onInput={(e) => form.set('description', e.currentTarget.value)} />
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.pending}>{form.pending ? 'Saving…' : campaign ? 'Save changes' : 'Create campaign'}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
