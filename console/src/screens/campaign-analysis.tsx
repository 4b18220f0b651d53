// The campaign reads over a range of days: the overlap calendar (future days included), the
// collaboration analysis, and one campaign's status history.
import { useMemo, useState } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { Chart, LAYER_COLORS } from '../components/chart.tsx';
import { CsvButton, type CsvColumn, csvFileName, yesNoColumn } from '../components/csv.tsx';
import { isDate, RangeForm } from '../components/filters.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { Badge, CampaignBadge } from '../components/badge.tsx';
import { campaignState, type Layer, layerLabel, LAYERS, statusLabel } from '../format/labels.ts';
import { fmt } from '../format/numbers.ts';
import { addDays, storeToday } from '../format/store-time.ts';
import { analysisText } from '../i18n/campaign-analysis.ts';
import { common } from '../i18n/common.ts';
import { locale, text } from '../i18n/index.ts';
import { href, type Route, useParams } from '../router.ts';

type CalendarDay = Ok<paths['/campaigns/calendar']['get']>['data']['days'][number];
type Pair = Ok<paths['/campaigns/collaboration']['get']>['data']['pairs'][number];

/** The pairs as a file: the table's columns, then the two campaigns' ids for other systems. */
function pairColumns(): CsvColumn<Pair>[] {
  const t = text(analysisText);
  return [
    { header: t.campaign, cell: (p) => p.campaign_1_name },
    { header: t.with, cell: (p) => p.campaign_2_name },
    yesNoColumn(t.sameLayerColumn, (p) => p.same_layer),
    { header: t.daysTogether, cell: (p) => p.overlap_days },
    { header: t.from, cell: (p) => p.first_overlap_date },
    { header: t.to, cell: (p) => p.last_overlap_date },
    { header: t.campaignId, cell: (p) => p.campaign_1_id },
    { header: t.withId, cell: (p) => p.campaign_2_id },
  ];
}

function monthBounds(month: string) {
  const first = `${month}-01`;
  const d = new Date(`${first}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1, 0);
  return { first, last: d.toISOString().slice(0, 10) };
}
function shiftMonth(month: string, by: number) {
  const d = new Date(`${month}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + by);
  return d.toISOString().slice(0, 7);
}
const monthName = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleDateString(locale(), { month: 'long', year: 'numeric', timeZone: 'UTC' });

export function CampaignCalendar({ route }: { route: Route }) {
  const t = text(analysisText);
  const [params, setParams] = useParams(route);
  const month = /^\d{4}-\d{2}$/.test(params.month ?? '') ? params.month : storeToday().slice(0, 7);
  const { first, last } = monthBounds(month);
  const load = useLoad(
    (signal) => api('get', '/campaigns/calendar', { query: { from: first, to: last }, signal }).then((r) => r.data),
    [first, last],
  );
  // Drafts count on no day, so the calendar's days leave them out; planning needs them in sight, apart. The
  // active campaigns still to start are told apart from those running by their first day.
  const inMonth = (status: 'draft' | 'active', from: string) => (signal: AbortSignal) =>
    from > last
      ? Promise.resolve([])
      : api('get', '/campaigns', { query: { status, start_date: from, end_date: last, limit: '100' }, signal }).then((
        r,
      ) => r.data.campaigns);
  const drafts = useLoad(inMonth('draft', first), [first, last], 'campaigns');
  const tomorrow = addDays(storeToday(), 1);
  const ahead = useLoad(inMonth('active', tomorrow > first ? tomorrow : first), [first, last], 'campaigns');
  const monthDrafts = drafts.data ?? [];
  const scheduled = new Map((ahead.data ?? []).filter((c) => campaignState(c) === 'scheduled').map((c) => [c.id, c]));
  const selected = isDate(params.day) && params.day >= first && params.day <= last ? params.day : undefined;

  return (
    <div class='stack'>
      <div class='month-nav'>
        <a
          class='button'
          href={href('campaigns', { ...params, month: shiftMonth(month, -1), day: undefined })}
          aria-label={t.previousMonth}
        >
          ←
        </a>
        <h2 class='month-title' aria-live='polite'>{monthName(month)}</h2>
        <a
          class='button'
          href={href('campaigns', { ...params, month: shiftMonth(month, 1), day: undefined })}
          aria-label={t.nextMonth}
        >
          →
        </a>
        <a class='button' href={href('campaigns', { ...params, month: undefined, day: undefined })}>{t.thisMonth}</a>
      </div>
      <p class='muted'>{t.calendarLead}</p>
      <ul class='legend intensity-legend' aria-label={t.legend}>
        {(['none', 'low', 'medium', 'high'] as const).map((level) => (
          <li key={level}>
            <span class={`intensity-swatch intensity-${level}`} aria-hidden='true' /> {t[`intensity.${level}`]}
          </li>
        ))}
        {LAYERS.map((l) => (
          <li key={l}>
            <span class={`swatch layer-${l}`} aria-hidden='true' /> {layerLabel(l)}
          </li>
        ))}
      </ul>
      <Loaded load={load} label={t.loadingCalendar}>
        {(data) => (
          <>
            <MonthGrid
              month={month}
              days={data.days}
              drafts={monthDrafts}
              selected={selected}
              onPick={(day) => setParams({ day: day === selected ? undefined : day }, true)}
            />
            {selected && (
              <DayDetail
                day={data.days.find((d) => d.date === selected)}
                date={selected}
                drafts={draftsOn(monthDrafts, selected)}
                scheduled={scheduled}
              />
            )}
            {monthDrafts.length > 0 && <Drafts drafts={monthDrafts} />}
            <OverlapChart days={data.days} first={first} last={last} />
          </>
        )}
      </Loaded>
    </div>
  );
}

type Draft = Ok<paths['/campaigns']['get']>['data']['campaigns'][number];
const draftsOn = (drafts: Draft[], date: string) => drafts.filter((c) => c.start_date <= date && date <= c.end_date);

/** The month's drafts, apart from what counts: what is planned and still to be activated. */
function Drafts({ drafts }: { drafts: Draft[] }) {
  const t = text(analysisText);
  return (
    <section class='card' aria-labelledby='drafts-title' data-testid='calendar-drafts'>
      <h3 id='drafts-title'>{t.draftsTitle(drafts.length)}</h3>
      <ul>
        {drafts.map((c) => (
          <li key={c.id}>
            <a href={href('campaigns', { tab: 'list', id: c.id })} data-user-text>{c.name}</a>{' '}
            <Badge kind='draft'>{statusLabel('draft')}</Badge> {fmt.day(c.start_date)} → {fmt.day(c.end_date)} ·{' '}
            {fmt.money(c.budget)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function MonthGrid(
  { month, days, drafts, selected, onPick }: {
    month: string;
    days: CalendarDay[];
    drafts: Draft[];
    selected?: string;
    onPick: (day: string) => void;
  },
) {
  const t = text(analysisText);
  const { first, last } = monthBounds(month);
  const byDate = new Map(days.map((d) => [d.date, d]));
  const offset = (new Date(`${first}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday first
  const cells: (string | null)[] = Array(offset).fill(null);
  for (let d = first; d <= last; d = addDays(d, 1)) cells.push(d);
  while (cells.length % 7) cells.push(null);
  const weeks = Array.from({ length: cells.length / 7 }, (_, i) => cells.slice(i * 7, i * 7 + 7));
  const today = storeToday();
  return (
    <div class='table-wrap' tabIndex={0} role='region' aria-label={t.calendarCaption(monthName(month))}>
      <table class='calendar' data-month={month}>
        <caption class='visually-hidden'>{t.calendarCaption(monthName(month))}</caption>
        <thead>
          <tr>{t.weekdays.split(' ').map((w) => <th scope='col' key={w}>{w}</th>)}</tr>
        </thead>
        <tbody>
          {weeks.map((week, i) => (
            <tr key={i}>
              {week.map((date, j) => {
                if (!date) return <td key={j} class='outside' />;
                const day = byDate.get(date);
                const count = day?.active_campaign_count ?? 0;
                const planned = draftsOn(drafts, date).length;
                return (
                  <td
                    key={j}
                    data-date={date}
                    class={`day intensity-${count === 0 ? 'none' : day!.competition_intensity}${
                      date === today ? ' today' : ''
                    }`}
                  >
                    <button
                      type='button'
                      aria-pressed={date === selected}
                      onClick={() => onPick(date)}
                      data-user-text
                      title={day?.active_campaigns.map((c) => c.campaign_name).join('\n')}
                    >
                      {/* The name is the visible day number followed by the day in words, so what is seen is what is said. */}
                      <span class='day-number'>{Number(date.slice(8))}</span>
                      <span class='visually-hidden'>
                        {' '}
                        {t.dayLabel(
                          fmt.day(date),
                          count,
                          day ? day.active_campaigns.map((c) => c.campaign_name).join(', ') : '',
                          0,
                        )}
                        {planned > 0 && t.draftsLabel(planned)}
                      </span>
                      {count > 0 && <span class='day-count' aria-hidden='true'>{count}</span>}
                      <span class='day-names' aria-hidden='true'>
                        {day?.active_campaigns.slice(0, 3).map((c) => (
                          <span key={c.campaign_id} class='day-name'>
                            <span class={`swatch layer-${c.attribution_layer}`} /> {c.campaign_name}
                          </span>
                        ))}
                        {count > 3 && <span class='muted'>{t.more(count - 3)}</span>}
                        {planned > 0 && <span class='day-drafts'>{t.draftsOnDay(planned)}</span>}
                      </span>
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DayDetail(
  { day, date, drafts, scheduled }: { day?: CalendarDay; date: string; drafts: Draft[]; scheduled: Map<string, Draft> },
) {
  const t = text(analysisText);
  return (
    <section class='card' aria-labelledby='day-title'>
      <h3 id='day-title'>{fmt.day(date)}</h3>
      {!day || day.active_campaign_count === 0 ? <Empty>{t.noCampaignOnDay}</Empty> : (
        <>
          <p>
            {t.dayLine(day.active_campaign_count)}{' '}
            <Badge kind={`impact-${day.competition_intensity}`}>{t[`intensity.${day.competition_intensity}`]}</Badge>
            {' '}
            {t.revenue(fmt.money(day.total_revenue))} <a href={href('attribution', { date })}>{t.splitOnDay}</a>
          </p>
          <div class='table-wrap' tabIndex={0} role='region' aria-label={fmt.day(date)}>
            <table>
              <thead>
                <tr>
                  <th scope='col'>{t.campaign}</th>
                  <th scope='col'>{t.layer}</th>
                  <th scope='col' class='num'>{t.weight}</th>
                  <th scope='col'>{t.strength}</th>
                  <th scope='col' class='num'>{t.attributed}</th>
                </tr>
              </thead>
              <tbody>
                {day.active_campaigns.map((c) => (
                  <tr key={c.campaign_id}>
                    <td>
                      <a href={href('campaigns', { tab: 'list', id: c.campaign_id })}>{c.campaign_name}</a>
                      {scheduled.has(c.campaign_id) && (
                        <>
                          <CampaignBadge campaign={scheduled.get(c.campaign_id)!} />
                        </>
                      )}
                    </td>
                    <td>
                      <span class={`swatch layer-${c.attribution_layer}`} aria-hidden='true' />{' '}
                      {layerLabel(c.attribution_layer)}
                    </td>
                    <td class='num'>{fmt.pct(c.normalized_weight, 2)}</td>
                    <td>
                      <Badge kind={`strength-${c.attribution_strength}`}>
                        {t[`strength.${c.attribution_strength}`]}
                      </Badge>
                    </td>
                    <td class='num'>{fmt.money(c.attributed_amount)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {drafts.length > 0 && (
        <>
          <h4>{t.draftsOnDayTitle}</h4>
          <ul>
            {drafts.map((c) => (
              <li key={c.id}>
                <a href={href('campaigns', { tab: 'list', id: c.id })} data-user-text>{c.name}</a>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function OverlapChart({ days, first, last }: { days: CalendarDay[]; first: string; last: string }) {
  const t = text(analysisText);
  const dates: string[] = [];
  for (let d = first; d <= last; d = addDays(d, 1)) dates.push(d);
  const byDate = new Map(days.map((d) => [d.date, d]));
  const counts = (layer: Layer) =>
    dates.map((d) => byDate.get(d)?.active_campaigns.filter((c) => c.attribution_layer === layer).length ?? 0);
  const config = useMemo(() => ({
    type: 'bar' as const,
    data: {
      labels: dates.map((d) => d.slice(5)),
      datasets: LAYERS.filter((l) => l !== 'general').map((l) => ({
        label: layerLabel(l),
        data: counts(l),
        backgroundColor: LAYER_COLORS[l],
      })),
    },
    options: {
      scales: {
        x: { stacked: true, ticks: { maxTicksLimit: 16 } },
        y: { stacked: true, ticks: { precision: 0 }, title: { display: true, text: t.activeCampaigns } },
      },
      plugins: { legend: { position: 'bottom' as const } },
    },
  }), [days]);
  return (
    <section class='card' aria-labelledby='overlap-title'>
      <h3 id='overlap-title'>{t.overlaps}</h3>
      <Chart
        id='calendar-chart'
        config={config}
        height={220}
        label={t.overlapChart(fmt.day(first), fmt.day(last))}
        table={{
          caption: t.perDay,
          columns: [t.date, t.count, t.campaigns],
          rows: dates.map((
            d,
          ) => [
            d,
            byDate.get(d)?.active_campaign_count ?? 0,
            byDate.get(d)?.active_campaigns.map((c) => c.campaign_name).join(', ') ?? '',
          ]),
        }}
      />
    </section>
  );
}

export function Collaboration({ route }: { route: Route }) {
  const t = text(analysisText);
  const [params, setParams] = useParams(route);
  const from = isDate(params.from) ? params.from : addDays(storeToday(), -90);
  const to = isDate(params.to) ? params.to : addDays(storeToday(), 30);
  const sameLayer = params.same === '1';
  const [shown, setShown] = useState(25);
  const load = useLoad(
    (signal) => api('get', '/campaigns/collaboration', { query: { from, to }, signal }).then((r) => r.data),
    [from, to],
  );
  return (
    <div class='stack'>
      <p class='muted'>{t.collaborationLead}</p>
      <RangeForm
        key={`${from}:${to}`}
        from={from}
        to={to}
        label={t.collaborationRange}
        onChange={(f, until) => setParams({ from: f, to: until })}
      />
      <label class='checkbox'>
        <input
          type='checkbox'
          checked={sameLayer}
          onChange={(e) => setParams({ same: e.currentTarget.checked ? '1' : undefined }, true)}
        />{' '}
        {t.sameLayerOnly}
      </label>
      <Loaded load={load} label={t.loadingCollaboration}>
        {(data) => {
          const pairs = [...data.pairs].filter((p) => !sameLayer || p.same_layer).sort((a, b) =>
            b.overlap_days - a.overlap_days
          );
          if (!pairs.length) return <Empty>{t.noPairs(fmt.day(from), fmt.day(to))}</Empty>;
          return (
            <>
              <div class='table-wrap' tabIndex={0} role='region' aria-label={t.pairsCaption}>
                <table>
                  <caption class='visually-hidden'>{t.pairsCaption}</caption>
                  <thead>
                    <tr>
                      <th scope='col'>{t.campaign}</th>
                      <th scope='col'>{t.with}</th>
                      <th scope='col' class='num'>{t.daysTogether}</th>
                      <th scope='col'>{t.from}</th>
                      <th scope='col'>{t.to}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {pairs.slice(0, shown).map((p) => (
                      <tr key={`${p.campaign_1_id}:${p.campaign_2_id}`}>
                        <td>
                          <span class={`swatch layer-${p.campaign_1_layer}`} aria-hidden='true' />{' '}
                          <a href={href('campaigns', { tab: 'list', id: p.campaign_1_id })}>{p.campaign_1_name}</a>
                        </td>
                        <td>
                          <span class={`swatch layer-${p.campaign_2_layer}`} aria-hidden='true' />{' '}
                          <a href={href('campaigns', { tab: 'list', id: p.campaign_2_id })}>{p.campaign_2_name}</a>
                          {p.same_layer && (
                            <>
                              <Badge kind='warning'>{t.sameLayer}</Badge>
                            </>
                          )}
                        </td>
                        <td class='num'>{fmt.int(p.overlap_days)}</td>
                        <td>{fmt.day(p.first_overlap_date)}</td>
                        <td>{fmt.day(p.last_overlap_date)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <p class='muted'>
                {t.shownOf(Math.min(shown, pairs.length), pairs.length)}{' '}
                {shown < pairs.length && (
                  <button type='button' class='link' onClick={() => setShown((n) => n + 50)}>{t.showMore}</button>
                )}
              </p>
              <p>
                <CsvButton
                  filename={csvFileName(t.collaborationFile, [from, to])}
                  columns={pairColumns()}
                  rows={() => pairs}
                />
              </p>
            </>
          );
        }}
      </Loaded>
    </div>
  );
}

export function StatusHistory({ id }: { id: string }) {
  const t = text(analysisText);
  const load = useLoad(
    (signal) => api('get', '/campaigns/{id}/history', { path: { id }, signal }).then((r) => r.data.history),
    [id],
    'campaign',
  );
  return (
    <section aria-labelledby='history-title'>
      <h3 id='history-title'>{t.history}</h3>
      <Loaded load={load}>
        {(history) =>
          history.length === 0 ? <Empty>{t.noHistory}</Empty> : (
            <ol class='history'>
              {history.map((h, i) => (
                <li key={i}>
                  {h.from_status
                    ? (
                      <>
                        <Badge kind={h.from_status}>{statusLabel(h.from_status)}</Badge> →
                      </>
                    )
                    : t.createdAs}
                  <Badge kind={h.to_status}>{statusLabel(h.to_status)}</Badge>{' '}
                  <span class='muted'>
                    {fmt.dateTime(h.changed_at)} · {h.changed_by_role === 'service_role'
                      ? text(common).storeJob
                      : h.changed_by_email
                      ? <span data-user-text>{h.changed_by_email}</span>
                      : t.anotherUser}
                  </span>
                </li>
              ))}
            </ol>
          )}
      </Loaded>
    </section>
  );
}
