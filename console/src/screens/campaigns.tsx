import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { Chart, moneyAxis, moneyTooltip } from '../components/chart.tsx';
import { ConfirmButton } from '../components/confirm.tsx';
import { CsvButton, type CsvColumn, csvFileName, timeColumn } from '../components/csv.tsx';
import { isDate, SearchFilters } from '../components/filters.tsx';
import { checks, Field, FormError, Pager, SelectField, useForm } from '../components/form.tsx';
import { changed, Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader, Tabs, useShownOnOpen } from '../components/screen.tsx';
import { Badge, CampaignBadge } from '../components/badge.tsx';
import {
  campaignStateLabel,
  type CampaignStatus,
  layerLabel,
  LAYERS,
  STATUSES,
  statusLabel,
  statusVerb,
} from '../format/labels.ts';
import { fmt } from '../format/numbers.ts';
import { addDays, storeToday } from '../format/store-time.ts';
import { campaignsText } from '../i18n/campaigns.ts';
import { common } from '../i18n/common.ts';
import { locale, text } from '../i18n/index.ts';
import { href, type Route, useParams } from '../router.ts';
import { CampaignCalendar, Collaboration, StatusHistory } from './campaign-analysis.tsx';
import { MAX_BUDGET, MAX_WEIGHT } from '../../../supabase/functions/_shared/money.ts';
import { Limits } from '../../../supabase/functions/_shared/database.types.ts';

type Campaign = Ok<paths['/campaigns/{id}']['get']>['data'];
type CampaignRow = Ok<paths['/campaigns']['get']>['data']['campaigns'][number];

/** The campaigns file's columns, as the list heads them, the id other systems join on last. */
function campaignColumns(): CsvColumn<CampaignRow>[] {
  const t = text(campaignsText);
  return [
    { header: t.name, cell: (c) => c.name },
    { header: t.status, cell: (c) => campaignStateLabel(c) },
    { header: t.startDate, cell: (c) => c.start_date },
    { header: t.endDate, cell: (c) => c.end_date },
    { header: t.budget, cell: (c) => c.budget },
    timeColumn(t.createdAt, (c) => c.created_at),
    { header: t.campaignId, cell: (c) => c.id },
  ];
}
const PAGE_SIZE = 20;

export function CampaignsScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const t = text(campaignsText);
  const [params] = useParams(route);
  const tab = params.tab === 'calendar' || params.tab === 'collaboration' ? params.tab : 'list';
  return (
    <section>
      <ScreenHeader title={t.title} lead={t.lead}>
        {isAdmin && <a class='button primary' href={href('campaigns', { tab: 'list', edit: 'new' })}>{t.newCampaign}
        </a>}
      </ScreenHeader>
      <Tabs
        label={t.views}
        current={tab}
        tabs={[
          { id: 'list', label: t.list, href: href('campaigns', { tab: 'list' }) },
          { id: 'calendar', label: t.calendar, href: href('campaigns', { tab: 'calendar' }) },
          { id: 'collaboration', label: t.collaboration, href: href('campaigns', { tab: 'collaboration' }) },
        ]}
      />
      {tab === 'list' && <CampaignList route={route} isAdmin={isAdmin} />}
      {tab === 'calendar' && <CampaignCalendar route={route} />}
      {tab === 'collaboration' && <Collaboration route={route} />}
    </section>
  );
}

function CampaignList({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const t = text(campaignsText);
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.page) || 1);
  const status = STATUSES.includes(params.status as CampaignStatus) ? (params.status as CampaignStatus) : undefined;
  // What the last save did, said in the campaign's detail (which a new campaign opens).
  const [saved, setSaved] = useState<{ id: string; message: string } | null>(null);

  const list = useLoad(
    (signal) =>
      api('get', '/campaigns', {
        query: {
          page: String(page),
          limit: String(PAGE_SIZE),
          status,
          search: params.search,
          start_date: params.from,
          end_date: params.to,
        },
        signal,
      }).then((r) => r.data),
    [page, status, params.search, params.from, params.to],
    'campaigns',
  );
  const stats = useLoad((signal) => api('get', '/campaigns/stats', { signal }).then((r) => r.data), [], 'campaigns');

  return (
    <div class='stack'>
      <Loaded load={stats}>
        {(s) => (
          <ul class='stat-strip' aria-label={t.counts}>
            <li>
              <span class='label'>{t.all}</span> {fmt.int(s.total_campaigns)}
            </li>
            <li>
              <span class='label'>{t.active}</span> {fmt.int(s.active_campaigns)}
            </li>
            <li>
              <span class='label'>{t.draft}</span> {fmt.int(s.draft_campaigns)}
            </li>
            <li>
              <span class='label'>{t.paused}</span> {fmt.int(s.paused_campaigns)}
            </li>
            <li>
              <span class='label'>{t.completed}</span> {fmt.int(s.completed_campaigns)}
            </li>
            <li>
              <span class='label'>{t.activeBudget}</span> {fmt.money(s.active_budget)}
            </li>
          </ul>
        )}
      </Loaded>
      {params.edit === 'new' && isAdmin && (
        <CampaignForm
          onSaved={(c) => {
            changed('campaigns');
            setSaved({ id: c.id, message: t.created(c.name) });
            setParams({ edit: undefined, id: c.id });
          }}
          onCancel={() => setParams({ edit: undefined })}
        />
      )}
      {params.id && (
        <CampaignDetail
          key={params.id}
          id={params.id}
          isAdmin={isAdmin}
          editing={params.edit === params.id}
          saved={saved?.id === params.id ? saved.message : ''}
          onSaved={(message) => setSaved({ id: params.id, message })}
          onEdit={(on) => {
            setSaved(null);
            setParams({ edit: on ? params.id : undefined });
          }}
          onClose={() => setParams({ id: undefined, edit: undefined })}
        />
      )}
      <SearchFilters route={route} label={t.filter} placeholder={t.searchPlaceholder}>
        <SelectField
          label={t.status}
          name='status'
          value={status ?? ''}
          onChange={(x) => setParams({ status: x || undefined, page: undefined })}
          options={[{ value: '', label: t.anyStatus }, ...STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))]}
        />
        <Field
          label={t.runningFrom}
          name='from'
          type='date'
          value={params.from ?? ''}
          onChange={(e) => setParams({ from: e.currentTarget.value || undefined, page: undefined })}
        />
        <Field
          label={t.runningTo}
          name='to'
          type='date'
          value={params.to ?? ''}
          onChange={(e) => setParams({ to: e.currentTarget.value || undefined, page: undefined })}
        />
      </SearchFilters>
      <Loaded load={list} label={t.loading}>
        {(data) =>
          data.campaigns.length === 0
            ? <Empty>{params.search || status || params.from || params.to ? t.noMatch : t.none}</Empty>
            : (
              <>
                <div class='table-wrap' tabIndex={0} role='region' aria-label={t.caption}>
                  <table class='campaigns'>
                    <caption class='visually-hidden'>{t.caption}</caption>
                    <thead>
                      <tr>
                        <th scope='col'>{t.name}</th>
                        <th scope='col'>{t.status}</th>
                        <th scope='col'>{t.starts}</th>
                        <th scope='col'>{t.ends}</th>
                        <th scope='col' class='num'>{t.budget}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.campaigns.map((c) => (
                        <tr key={c.id} aria-current={c.id === params.id ? 'true' : undefined}>
                          <td>
                            <a href={href('campaigns', { ...params, id: c.id, edit: undefined })}>{c.name}</a>
                          </td>
                          <td>
                            <CampaignBadge campaign={c} />
                          </td>
                          <td>{fmt.day(c.start_date)}</td>
                          <td>{fmt.day(c.end_date)}</td>
                          <td class='num'>{fmt.money(c.budget)}</td>
                        </tr>
                      ))}
                    </tbody>
                    <tfoot>
                      <tr>
                        <th scope='row' colSpan={4}>{t.pageTotal}</th>
                        <td class='num'>{fmt.money(data.campaigns.reduce((sum, c) => sum + (c.budget ?? 0), 0))}</td>
                      </tr>
                    </tfoot>
                  </table>
                </div>
                <Pager
                  page={data.pagination.current_page}
                  totalPages={data.pagination.total_pages}
                  count={t.campaignCount(data.pagination.total_count)}
                  label={t.pages}
                  onPage={(p) => setParams({ page: p })}
                />
                <p>
                  <CsvButton
                    filename={csvFileName(t.csvFile, [params.from, params.to])}
                    columns={campaignColumns()}
                    rows={async () => {
                      const rows: CampaignRow[] = [];
                      for (let p = 1;; p++) {
                        const r = (await api('get', '/campaigns', {
                          query: {
                            page: String(p),
                            limit: '100',
                            status,
                            search: params.search,
                            start_date: params.from,
                            end_date: params.to,
                          },
                        })).data;
                        rows.push(...r.campaigns);
                        if (p >= r.pagination.total_pages) return rows;
                      }
                    }}
                  />
                </p>
              </>
            )}
      </Loaded>
    </div>
  );
}

function CampaignDetail({ id, isAdmin, editing, saved, onSaved, onEdit, onClose }: {
  id: string;
  isAdmin: boolean;
  editing: boolean;
  saved: string;
  onSaved: (message: string) => void;
  onEdit: (on: boolean) => void;
  onClose: () => void;
}) {
  const t = text(campaignsText);
  const campaign = useLoad((signal) => api('get', '/campaigns/{id}', { path: { id }, signal }).then((r) => r.data), [
    id,
  ], 'campaign');
  useShownOnOpen(campaign.data !== undefined, 'campaign-title');
  // The type by its name and layer, as the form offers it; until the names come (or for a type since
  // deactivated, which the catalogue no longer offers), its layer alone.
  const types = useLoad(loadTypeOptions, []);
  const typeName = (code: string) =>
    types.data?.find((x) => x.value === code)?.label ?? layerLabel(campaign.data!.attribution_layer);
  const refresh = () => changed('campaign', 'campaigns');
  return (
    <section class='card detail' aria-labelledby='campaign-title'>
      <Loaded load={campaign} label={t.loadingCampaign}>
        {(c) => (
          <>
            <div class='detail-head'>
              <h2 id='campaign-title'>
                <span data-user-text>{c.name}</span> <CampaignBadge campaign={c} />
              </h2>
              <button type='button' class='link' onClick={onClose}>{t.close}</button>
            </div>
            {saved && !editing && <p class='state success' role='status'>{saved}</p>}
            {editing && isAdmin
              ? (
                <CampaignForm
                  campaign={c}
                  onSaved={(x) => {
                    onEdit(false);
                    onSaved(t.savedChanges(x.name));
                    refresh();
                  }}
                  onCancel={() => onEdit(false)}
                />
              )
              : (
                <>
                  <dl class='facts'>
                    <div>
                      <dt>{t.dates}</dt>
                      <dd>{fmt.day(c.start_date)} → {fmt.day(c.end_date)}</dd>
                    </div>
                    <div>
                      <dt>{t.type}</dt>
                      <dd data-type-code={c.campaign_type}>{typeName(c.campaign_type)}</dd>
                    </div>
                    <div>
                      <dt>{t.weightPriority}</dt>
                      <dd>{fmt.num(c.attribution_weight)} · {fmt.int(c.priority_score)}</dd>
                    </div>
                    <div>
                      <dt>{t.budget}</dt>
                      <dd>{fmt.money(c.budget)}</dd>
                    </div>
                    {c.target_audience && (
                      <div>
                        <dt>{t.audience}</dt>
                        <dd data-user-text>{c.target_audience}</dd>
                      </div>
                    )}
                    {c.description && (
                      <div class='wide'>
                        <dt>{t.description}</dt>
                        <dd data-user-text>{c.description}</dd>
                      </div>
                    )}
                  </dl>
                  {/* One message at a time: a status change replaces the note that the edit was saved. */}
                  {isAdmin && (
                    <StatusActions
                      campaign={c}
                      onEdit={() => onEdit(true)}
                      onChanged={() => {
                        onSaved('');
                        refresh();
                      }}
                    />
                  )}
                </>
              )}
            <div class='two-columns'>
              <CampaignMetrics id={c.id} />
              <StatusHistory id={c.id} />
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}

/** The final moves, which ask first (docs/campaigns.md: completed and cancelled campaigns are history). */
const FINAL_MOVES: CampaignStatus[] = ['completed', 'cancelled'];

/**
 * The status moves the campaign allows. A final one (complete, cancel) asks first, naming what it does;
 * the others act at once. Each move says what it did, where focus goes, with an undo when the move can
 * be taken back (pause and activate).
 */
function StatusActions(
  { campaign, onEdit, onChanged }: { campaign: Campaign; onEdit: () => void; onChanged: () => void },
) {
  const t = text(campaignsText);
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
  const undoable = done && campaign.status === done.to && campaign.allowed_transitions.includes(done.from);
  return (
    <div class='actions' role='group' aria-label={t.actions}>
      <button type='button' onClick={onEdit}>{t.edit}</button>
      {campaign.allowed_transitions.map((s) =>
        FINAL_MOVES.includes(s)
          ? (
            <ConfirmButton
              key={s}
              label={statusVerb(s)}
              disabled={!!pending}
              yes={t.yesVerb(statusVerb(s))}
              question={t.confirmMove(statusVerb(s), campaign.name, t.finalConsequence)}
              onConfirm={() => move(s)}
            />
          )
          : (
            <button
              key={s}
              type='button'
              class={s === 'active' ? 'primary' : ''}
              disabled={!!pending}
              onClick={() => moveNow(s)}
            >
              {pending === s ? text(common).saving : statusVerb(s)}
            </button>
          )
      )}
      {done && (
        <p key={done.at} class='state success' role='status' tabIndex={-1} ref={said}>
          {t.isNow(campaign.name, campaignStateLabel({ status: done.to, start_date: campaign.start_date }))}{' '}
          {undoable && (
            <button
              type='button'
              class='link'
              disabled={!!pending}
              onClick={() => moveNow(done.from, done.to)}
            >
              {t.undo(statusVerb(done.from))}
            </button>
          )}
        </p>
      )}
      {error && <p class='state error' role='alert'>{error}</p>}
    </div>
  );
}

function CampaignMetrics({ id }: { id: string }) {
  const t = text(campaignsText);
  const metrics = useLoad(
    (signal) => api('get', '/campaigns/{id}/metrics', { path: { id }, signal }).then((r) => r.data),
    [id],
    'campaign',
  );
  return (
    <section aria-labelledby='metrics-title'>
      <h3 id='metrics-title'>{t.attributedRevenue}</h3>
      <Loaded load={metrics}>
        {(m) => <MetricsView m={m} />}
      </Loaded>
    </section>
  );
}

function MetricsView({ m }: { m: Ok<paths['/campaigns/{id}/metrics']['get']>['data'] }) {
  const t = text(campaignsText);
  // A line needs two days; a campaign that counted on one day (or a few) gets bars, which show a single day.
  const few = m.daily_attribution.length < 3;
  const config = useMemo(() => ({
    type: few ? 'bar' as const : 'line' as const,
    data: {
      labels: m.daily_attribution.map((d) => fmt.day(d.date)),
      datasets: [{
        label: t.attributedRevenue,
        data: m.daily_attribution.map((d) => d.attributed_amount),
        borderColor: '#1f4f9e',
        backgroundColor: few ? '#1f4f9e' : 'rgba(31, 79, 158, 0.15)',
        fill: !few,
        pointRadius: 0,
        maxBarThickness: 48,
      }],
    },
    options: {
      plugins: { legend: { display: false }, tooltip: moneyTooltip('y') },
      scales: { x: { ticks: { maxTicksLimit: 8 } }, y: moneyAxis },
    },
  }), [m]);
  return (
    <>
      <p>
        {t.metricsLine(
          fmt.money(m.metrics.attributed_revenue),
          m.metrics.attribution_days,
          fmt.money(m.metrics.avg_daily_revenue),
          m.metrics.collaboration_campaigns,
        )}{' '}
        <Badge kind={`impact-${m.metrics.competition_intensity}`}>
          {t[`competition.${m.metrics.competition_intensity}`]}
        </Badge>
      </p>
      {m.metrics.spend_to_date === null ? <p class='muted'>{t.noSpendYet}</p> : (
        <p data-testid='campaign-spend'>
          {t.spendLine(fmt.money(m.metrics.spend_to_date), m.metrics.spend_recorded, fmt.num(m.metrics.roas))}
          {m.metrics.pacing !== null && (
            <>
              {' · '}
              {t.pacing(fmt.pct(m.metrics.pacing, 0))}
              {m.metrics.pacing > 1.2 && (
                <>
                  <Badge kind='warning'>{t.pacingAhead}</Badge>
                </>
              )}
            </>
          )}
        </p>
      )}
      {m.daily_attribution.length === 0 ? <Empty>{t.neverCounted}</Empty> : (
        <Chart
          key={few ? 'bar' : 'line'}
          config={config}
          height={200}
          label={t.dailyChart(m.daily_attribution.length)}
          table={{
            caption: t.dailyTable,
            columns: [t.date, t.amount, t.sharePct],
            rows: m.daily_attribution.map((
              d,
            ) => [fmt.day(d.date), fmt.money(d.attributed_amount), d.attribution_percentage]),
          }}
        />
      )}
    </>
  );
}

type CampaignTypeOption = { value: string; label: string; layer: (typeof LAYERS)[number] };

/** The catalogue's types as the form offers them (every layer a campaign may take), in the screen's language. */
function loadTypeOptions(signal: AbortSignal): Promise<CampaignTypeOption[]> {
  return api('get', '/campaign-types/groups', { signal }).then((r) =>
    (['site-wide', 'target-oriented', 'category-specific'] as const).flatMap((layer) =>
      r.data[layer].types.map((x): CampaignTypeOption => ({
        value: x.type_code,
        label: `${locale() === 'zh-TW' ? x.display_name_zh : x.display_name_en ?? x.display_name_zh} · ${
          layerLabel(layer)
        }`,
        layer,
      }))
    )
  );
}

/**
 * The site-wide campaigns active on any day of `from`..`to` other than `self`, with the days they share:
 * at most one site-wide campaign may be active on a day (CAMPAIGN_OVERLAP_CONFLICT), so a form warns of a
 * clash before it is saved rather than at activation.
 */
function useSiteWideClash(layer: string | undefined, from: string, to: string, self?: string) {
  const valid = layer === 'site-wide' && isDate(from) && isDate(to) && from <= to && addDays(from, 365) >= to;
  const load = useLoad(
    (signal) =>
      valid
        ? api('get', '/campaigns/calendar', { query: { from, to }, signal }).then((r) => {
          const clashes = new Map<string, { name: string; days: string[] }>();
          for (const day of r.data.days) {
            for (const c of day.active_campaigns) {
              if (c.attribution_layer !== 'site-wide' || c.campaign_id === self) continue;
              const clash = clashes.get(c.campaign_id) ?? { name: c.campaign_name, days: [] };
              clash.days.push(day.date);
              clashes.set(c.campaign_id, clash);
            }
          }
          return [...clashes.values()];
        })
        : Promise.resolve([]),
    [valid, from, to, self],
  );
  return valid ? load.data ?? [] : [];
}

function CampaignForm(
  { campaign, onSaved, onCancel }: { campaign?: Campaign; onSaved: (c: Campaign) => void; onCancel: () => void },
) {
  const t = text(campaignsText);
  const form = useForm({
    name: campaign?.name ?? '',
    campaign_type: campaign?.campaign_type ?? '',
    start_date: campaign?.start_date ?? storeToday(1),
    end_date: campaign?.end_date ?? addDays(storeToday(1), 13),
    budget: campaign?.budget !== undefined && campaign?.budget !== null ? String(campaign.budget) : '',
    attribution_weight: campaign ? String(campaign.attribution_weight) : '',
    priority_score: campaign ? String(campaign.priority_score) : '',
    target_audience: campaign?.target_audience ?? '',
    description: campaign?.description ?? '',
  });
  // A campaign takes an active type of any layer but general (the catalogue's catch-all).
  const types = useLoad(loadTypeOptions, []);
  const v = form.values;
  const layer = campaign ? campaign.attribution_layer : types.data?.find((x) => x.value === v.campaign_type)?.layer;
  const clashes = useSiteWideClash(layer, v.start_date, v.end_date, campaign?.id);
  const num = (s: string) => (s.trim() === '' ? undefined : Number(s));
  const orNull = (s: string) => (s.trim() === '' ? null : s);

  return (
    <form
      class='card form'
      ref={form.formRef}
      noValidate
      aria-labelledby='campaign-form-title'
      onSubmit={(e) => {
        e.preventDefault();
        form.submit(
          async () => {
            const body = {
              name: v.name,
              start_date: v.start_date,
              end_date: v.end_date,
              budget: num(v.budget),
              attribution_weight: num(v.attribution_weight),
              priority_score: num(v.priority_score),
              target_audience: orNull(v.target_audience),
              description: orNull(v.description),
            };
            const saved = campaign
              ? (await api('put', '/campaigns/{id}', { path: { id: campaign.id }, body })).data
              : (await api('post', '/campaigns', { body: { ...body, campaign_type: v.campaign_type } })).data;
            onSaved(saved);
          },
          {},
          (x) => ({
            name: checks.required(x.name),
            campaign_type: campaign ? '' : checks.required(x.campaign_type),
            start_date: checks.required(x.start_date),
            end_date: checks.required(x.end_date) ||
              (x.start_date && x.end_date < x.start_date ? text(common).endBeforeStart : ''),
            budget: checks.decimal(x.budget, 0, MAX_BUDGET),
            attribution_weight: checks.decimal(x.attribution_weight, 0, MAX_WEIGHT),
            priority_score: checks.integer(x.priority_score, 0, Limits.priority),
          }),
        );
      }}
    >
      <h2 id='campaign-form-title'>{campaign ? t.editName(campaign.name) : t.newCampaign}</h2>
      {!campaign && <p class='muted'>{t.newHint}</p>}
      <FormError message={form.formError} />
      <div class='grid'>
        <Field
          label={t.name}
          name='name'
          value={v.name}
          error={form.errors.name}
          onInput={(e) => form.set('name', e.currentTarget.value)}
        />
        {campaign
          ? (
            <Field
              label={t.campaignType}
              name='campaign_type'
              value={campaign.campaign_type}
              disabled
              hint={t.typeFixed}
            />
          )
          : (
            <SelectField
              label={t.campaignType}
              name='campaign_type'
              value={v.campaign_type}
              error={form.errors.campaign_type ?? (types.status === 'error' ? types.error.message : undefined)}
              onChange={(x) => form.set('campaign_type', x)}
              options={[
                { value: '', label: types.status === 'loading' ? t.loadingTypes : t.chooseType },
                ...(types.data ?? []),
              ]}
            />
          )}
        <Field
          label={t.startDate}
          name='start_date'
          type='date'
          value={v.start_date}
          error={form.errors.start_date}
          onInput={(e) => form.set('start_date', e.currentTarget.value)}
        />
        <Field
          label={t.endDate}
          name='end_date'
          type='date'
          value={v.end_date}
          error={form.errors.end_date}
          onInput={(e) => form.set('end_date', e.currentTarget.value)}
        />
        <Field
          label={t.budget}
          name='budget'
          inputMode='decimal'
          value={v.budget}
          error={form.errors.budget}
          onInput={(e) => form.set('budget', e.currentTarget.value)}
        />
        <Field
          label={t.attributionWeight}
          name='attribution_weight'
          inputMode='decimal'
          value={v.attribution_weight}
          error={form.errors.attribution_weight}
          hint={campaign ? t.weightHint : t.weightDefault}
          onInput={(e) => form.set('attribution_weight', e.currentTarget.value)}
        />
        <Field
          label={t.priority}
          name='priority_score'
          inputMode='numeric'
          value={v.priority_score}
          error={form.errors.priority_score}
          hint={campaign ? t.priorityHint : t.priorityDefault}
          onInput={(e) => form.set('priority_score', e.currentTarget.value)}
        />
        <Field
          label={t.targetAudience}
          name='target_audience'
          value={v.target_audience}
          error={form.errors.target_audience}
          onInput={(e) => form.set('target_audience', e.currentTarget.value)}
        />
      </div>
      <Field label={t.description} name='description' error={form.errors.description}>
        <textarea
          id='f-description'
          name='description'
          rows={2}
          value={v.description}
          onInput={(e) => form.set('description', e.currentTarget.value)}
        />
      </Field>
      {clashes.length > 0 && (
        <div class='state notice' role='status' data-testid='site-wide-clash'>
          {clashes.map((c) => (
            <p key={c.name}>
              {t.siteWideClash(c.name, fmt.day(c.days[0]), fmt.day(c.days[c.days.length - 1]), c.days.length)}
            </p>
          ))}
        </div>
      )}
      <div class='actions'>
        <button type='submit' class='primary' disabled={form.pending}>
          {form.pending ? text(common).saving : campaign ? t.saveChanges : t.createCampaign}
        </button>
        <button type='button' onClick={onCancel}>{t.cancel}</button>
      </div>
    </form>
  );
}
