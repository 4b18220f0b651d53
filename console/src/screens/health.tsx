import { useMemo } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import { enums } from '../api/enums.ts';
import type { paths } from '../api/openapi.gen.ts';
import { Chart } from '../components/chart.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader } from '../components/screen.tsx';
import { RangeForm } from '../components/filters.tsx';
import { Badge } from '../components/badge.tsx';
import { fmt } from '../format/numbers.ts';
import { storeToday, storeZoneName } from '../format/store-time.ts';
import { healthText } from '../i18n/health.ts';
import { text } from '../i18n/index.ts';
import { href, navigate, type Route } from '../router.ts';

/** The report as version 2.0 answers it (the screen asks for 2.0: marketing scored, insights naming campaigns). */
type Report = Extract<Ok<paths['/business-health-analytics']['post']>['data'], { marketingDetails: unknown }>;
type Marketing = Window['marketing'];
const VERSION_2 = { accept: 'application/vnd.api+json;version=2.0' };
type Figures = Ok<paths['/business-health-analytics/figures']['get']>['data'];
type Window = Figures['current'];
type Days = Ok<paths['/business-health-analytics/days']['get']>['data'];
type Day = Days['today'];
const PERIODS = enums.health_period;
type Period = (typeof PERIODS)[number];
/** What a custom period is compared with, as the screen offers it (the API also takes other days). */
const COMPARISONS = enums.health_comparison.filter((c) => c !== 'custom') as Exclude<
  (typeof enums.health_comparison)[number],
  'custom'
>[];
type Comparison = (typeof COMPARISONS)[number];
/** A custom period: store days, and what they are compared with. */
interface Custom {
  from: string;
  to: string;
  compare: Comparison;
}

const DIMENSIONS = enums.health_dimension;

export function HealthScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const t = text(healthText);
  const requested = route.params.get('period');
  const period: Period = PERIODS.find((p) => p === requested) ?? '30d';
  // A custom period's days: the last 30 store days until the URL says otherwise.
  const custom: Custom | undefined = period === 'custom'
    ? {
      from: route.params.get('from') ?? storeToday(-29),
      to: route.params.get('to') ?? storeToday(),
      compare: COMPARISONS.find((c) => c === route.params.get('compare')) ?? 'previous',
    }
    : undefined;
  const load = useLoad(
    (signal) =>
      api('post', '/business-health-analytics', { body: { period, ...custom }, headers: VERSION_2, signal })
        .then((r) => r.data as Report),
    [period, custom?.from, custom?.to, custom?.compare],
  );

  return (
    <section aria-labelledby='health-title'>
      <ScreenHeader title={t.title} lead={t.lead}>
        <fieldset class='segmented'>
          <legend>{t.period}</legend>
          {PERIODS.map((p) => (
            <label key={p}>
              <input
                type='radio'
                name='period'
                value={p}
                checked={p === period}
                onChange={() => navigate('health', { period: p })}
              />
              <span>{t[`period.${p}`]}</span>
            </label>
          ))}
        </fieldset>
      </ScreenHeader>
      {custom && <CustomPeriodForm custom={custom} />}
      <Loaded load={load} label={t.computing}>
        {(report) => <HealthReport report={report} period={period} custom={custom} />}
      </Loaded>
      {isAdmin && <HealthDays />}
      {isAdmin && <HealthFigures period={period} custom={custom} />}
    </section>
  );
}

/** A custom period's store days (at most 366, checked before they are sent) and what they are compared with. */
function CustomPeriodForm({ custom }: { custom: Custom }) {
  const t = text(healthText);
  return (
    <div class='custom-period' data-testid='custom-period'>
      <RangeForm
        from={custom.from}
        to={custom.to}
        label={t.customPeriod}
        onChange={(from, to) => navigate('health', { period: 'custom', from, to, compare: custom.compare })}
      />
      <label class='field'>
        <span>{t.compareWith}</span>
        <select
          name='compare'
          value={custom.compare}
          onChange={(e) =>
            navigate('health', { period: 'custom', from: custom.from, to: custom.to, compare: e.currentTarget.value })}
        >
          {COMPARISONS.map((c) => <option key={c} value={c}>{t[`compare.${c}`]}</option>)}
        </select>
      </label>
    </div>
  );
}

function HealthReport({ report, period, custom }: { report: Report; period: Period; custom?: Custom }) {
  const t = text(healthText);
  const s = report.scoreDetails;
  const dimensions = DIMENSIONS.map((key) => ({ key, label: t[`dimension.${key}`], value: report.metrics[key] }));
  const config = useMemo(() => ({
    type: 'bar' as const,
    data: {
      labels: dimensions.map((d) => d.label),
      datasets: [{
        label: t.score,
        data: dimensions.map((d) => d.value ?? 0),
        backgroundColor: dimensions.map((
          d,
        ) => (d.value === null ? '#bbbbbb' : d.value >= 7 ? '#2f8a4a' : d.value >= 4 ? '#c28a00' : '#c0392b')),
        maxBarThickness: 22,
      }],
    },
    options: {
      indexAxis: 'y' as const,
      scales: { x: { min: 0, max: 10, ticks: { stepSize: 2 } } },
      plugins: { legend: { display: false } },
    },
  }), [report]);

  const trend = report.trends;
  const trendConfig = useMemo(() => {
    if (!trend) return null;
    const values = [
      trend.customerChange,
      trend.operationalChange,
      (trend.customerChange + trend.operationalChange) / 2,
    ];
    return {
      type: 'bar' as const,
      data: {
        labels: [t.customerQuality, t.operationalEfficiency, t.average],
        datasets: [{
          label: t.change,
          data: values,
          backgroundColor: values.map((v) => (v >= 0 ? '#2f8a4a' : '#c0392b')),
          maxBarThickness: 48,
        }],
      },
      options: {
        plugins: { legend: { display: false } },
        scales: { y: { ticks: { callback: (v: string | number) => `${v}%` } } },
      },
    };
  }, [report]);

  return (
    <div class='stack'>
      <div class='score-cards'>
        <div class='card score'>
          <span class='label'>{t.overallScore}</span>
          <span class='big' data-testid='overall-score'>{s.overallScore.toFixed(2)}</span>
          <span class='rating'>{s.rating}</span>
        </div>
        <div class='card'>
          <span class='label'>{t.customerQuality}</span>
          <span class='mid'>{fmt.num(s.customerQuality)}</span>
        </div>
        <div class='card'>
          <span class='label'>{t.operationalEfficiency}</span>
          <span class='mid'>{fmt.num(s.operationalEfficiency)}</span>
        </div>
        <div class='card'>
          <span class='label'>{t.supportEffectiveness}</span>
          <span class='mid'>{fmt.num(s.supportEffectiveness)}</span>
        </div>
      </div>
      <div class='two-columns'>
        <section class='card' aria-labelledby='dimensions-title'>
          <h2 id='dimensions-title'>
            {t.dimensionsTitle}{' '}
            <span class='muted'>
              {period === 'custom'
                ? t.dimensionsRange(fmt.day(report.marketingDetails.firstDay), fmt.day(report.marketingDetails.lastDay))
                : t.dimensionsScale(t[`period.${period}`])}
            </span>
          </h2>
          <Chart
            id='dimensions-chart'
            config={config}
            label={t.dimensionsChart(
              dimensions.map((d) => `${d.label} ${d.value === null ? t.notMeasured : d.value.toFixed(2)}`).join(', '),
            )}
            table={{
              caption: t.dimensionsTable,
              columns: [t.dimension, t.score],
              rows: dimensions.map((d) => [d.label, d.value === null ? t.notMeasured : d.value.toFixed(2)]),
            }}
          />
          <p class='muted' data-testid='marketing-details'>
            {report.marketingDetails.status === 'scored'
              ? t.marketingScored(
                fmt.num(report.marketingDetails.roas),
                report.marketingDetails.campaigns,
                fmt.day(report.marketingDetails.firstDay),
                fmt.day(report.marketingDetails.lastDay),
              )
              : t.marketingZero(report.marketingDetails.reason ?? '')}
          </p>
        </section>
        <section class='card' aria-labelledby='trend-title'>
          <h2 id='trend-title'>
            {t.trendTitle} <span class='muted'>{t.trendScope(custom && t[`compare.${custom.compare}`])}</span>
          </h2>
          {trend && trendConfig
            ? (
              <>
                <p class='trend'>
                  <Badge kind={trend.direction === '上升' ? 'good' : trend.direction === '下降' ? 'bad' : 'neutral'}>
                    {t[`direction.${trend.direction}`]}
                  </Badge>{' '}
                  {fmt.pct(trend.change / 100, 1)} · {trend.description}
                </p>
                <Chart
                  id='trend-chart'
                  config={trendConfig}
                  height={200}
                  label={t.trendChart(
                    fmt.pct(trend.customerChange / 100, 2),
                    fmt.pct(trend.operationalChange / 100, 2),
                    custom !== undefined,
                  )}
                  table={{
                    caption: t.trendTable,
                    columns: [t.figure, t.change],
                    rows: [[t.customerQuality, trend.customerChange], [
                      t.operationalEfficiency,
                      trend.operationalChange,
                    ]],
                  }}
                />
              </>
            )
            : <Empty>{t.noTrend}</Empty>}
        </section>
      </div>
      <section aria-labelledby='insights-title'>
        <h2 id='insights-title'>{t.insightsTitle}</h2>
        {report.insights?.length
          ? (
            <ul class='insights'>
              {report.insights.map((insight, i) => (
                <li key={i} class={`card insight insight-${insight.type}`}>
                  <h3>{insight.title}</h3>
                  <p>
                    <Badge kind={insight.type}>{t[`type.${insight.type}`]}</Badge>{' '}
                    <Badge kind={`impact-${insight.impact}`}>{t[`impact.${insight.impact}`]}</Badge>{' '}
                    <span class='muted'>
                      {t.confidence(fmt.pct(insight.confidence, 0), categoryWord(insight.category))}
                    </span>
                  </p>
                  <p>{insight.campaign_id ? withCampaignName(insight.description) : insight.description}</p>
                  {insight.actions.length > 0 && (
                    <>
                      <h4>{t.whatToDo}</h4>
                      <ul>
                        {insight.actions.map((a, j) => {
                          const to = actionLink(insight.action_targets[j], report.window, insight.campaign_id);
                          return (
                            <li key={a}>
                              {to ? <a href={to} data-action-target={insight.action_targets[j]}>{a}</a> : a}
                            </li>
                          );
                        })}
                      </ul>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )
          : <Empty>{t.noInsight}</Empty>}
      </section>
      <p class='muted'>{t.asOf(fmt.dateTime(report.timestamp))}</p>
    </div>
  );
}

/** The figures of one window, in the order the staff read them; `orders` marks those the orders list sums. */
const FIGURE_ROWS: { key: keyof Window & keyof typeof FIGURE_KEYS; money?: boolean; orders?: boolean }[] = [
  { key: 'revenue', money: true, orders: true },
  { key: 'counted_orders', orders: true },
  { key: 'average_order_value', money: true, orders: true },
  { key: 'orders', orders: true },
  { key: 'completed', orders: true },
  { key: 'cancelled', orders: true },
  { key: 'refunded', orders: true },
  { key: 'active_customers' },
  { key: 'new_customers' },
  { key: 'tickets_opened' },
  { key: 'tickets_resolved' },
];
const FIGURE_KEYS = {
  revenue: 'figure.revenue',
  counted_orders: 'figure.counted_orders',
  average_order_value: 'figure.average_order_value',
  orders: 'figure.orders',
  completed: 'figure.completed',
  cancelled: 'figure.cancelled',
  refunded: 'figure.refunded',
  active_customers: 'figure.active_customers',
  new_customers: 'figure.new_customers',
  tickets_opened: 'figure.tickets_opened',
  tickets_resolved: 'figure.tickets_resolved',
} as const;

type ActionTarget = (typeof enums.insight_action_target)[number];

/**
 * The screen an insight's action is carried out on: the orders of the report's window in the state it names, the products by stock status, a new campaign, the insight's own campaign (named
 * only to those who may read campaigns).
 */
function actionLink(
  target: ActionTarget | null | undefined,
  reported: Report['window'],
  campaignId: string | null | undefined,
): string | undefined {
  // A rolling window as it stood at its end; a custom period's store days as they are now.
  const window = {
    ordered_from: reported.from,
    ordered_before: reported.before,
    as_of: reported.period === 'custom' ? undefined : reported.before,
  };
  switch (target) {
    case 'orders_awaiting_shipment':
      return href('orders', { ...window, status: 'paid' });
    case 'orders_shipped':
      return href('orders', { ...window, status: 'shipped' });
    case 'orders_cancelled':
      return href('orders', { ...window, figure: 'cancelled' });
    case 'products_out_of_stock':
      return href('inventory', { status: 'out_of_stock' });
    case 'products_low_stock':
      return href('inventory', { status: 'low_stock' });
    case 'products':
      return href('inventory');
    case 'new_campaign':
      return href('campaigns', { edit: 'new' });
    case 'campaign':
      return campaignId ? href('campaigns', { tab: 'list', id: campaignId }) : undefined;
    default:
      return undefined;
  }
}

/** An insight's words with the campaign name it quotes (「…」 or "…") marked as the store's own text. */
function withCampaignName(description: string) {
  return description.split(/(「[^」]*」|"[^"]*")/).map((part, i) =>
    i % 2 === 1 ? <span key={i} data-user-text>{part}</span> : part
  );
}

/** An insight's category in words (the API's codes; an unknown one as it came). */
function categoryWord(category: string) {
  const t = text(healthText) as Record<string, unknown>;
  const word = t[`category.${category}`];
  return typeof word === 'string' ? word : category;
}

/**
 * The orders a figure counts (GET /orders `figure`): revenue, counted orders and the average count the orders
 * not refunded and not cancelled by the window's end; completed and cancelled those completed or cancelled
 * by then; "orders" every order placed in the window.
 */
const FIGURE_ORDERS: Record<string, 'counted' | 'completed' | 'cancelled' | 'refunded' | undefined> = {
  revenue: 'counted',
  counted_orders: 'counted',
  average_order_value: 'counted',
  completed: 'completed',
  cancelled: 'cancelled',
  refunded: 'refunded',
};

/**
 * The link to the orders a window's figure counts (every order of the window without one), as of its end: a
 * rolling window as it stood then. A store day is counted as of now, as the orders list counts its own days
 * (no `as_of`), so the two show one figure.
 */
const ordersOf = (w: Pick<Window, 'from' | 'before'>, figure?: string, asOfEnd = true) =>
  href('orders', {
    ordered_from: w.from,
    ordered_before: w.before,
    as_of: asOfEnd ? w.before : undefined,
    figure: figure && FIGURE_ORDERS[figure],
  });

function change(current: number | null, previous: number | null) {
  if (current === null || previous === null || previous === 0) return '—';
  const share = (current - previous) / Math.abs(previous);
  return `${share > 0 ? '+' : ''}${fmt.pct(share, 1)}`;
}

/** The figures of today so far and yesterday that the days route and the orders list count alike. */
const DAY_ROWS = FIGURE_ROWS.filter((row): row is typeof row & { key: keyof Day } =>
  ['revenue', 'counted_orders', 'orders', 'completed', 'cancelled', 'refunded'].includes(row.key)
);

/** Today so far and yesterday, store days (administrators only), each linked to its orders. */
function HealthDays() {
  const t = text(healthText);
  const load = useLoad(
    (signal) => api('get', '/business-health-analytics/days', { signal }).then((r) => r.data),
    [],
  );
  return (
    <section class='card health-days' aria-labelledby='days-title'>
      <h2 id='days-title'>{t.daysTitle}</h2>
      <p class='muted'>{t.daysLead(storeZoneName())}</p>
      <Loaded load={load} label={t.loadingDays}>
        {(d) => (
          <div class='table-wrap' tabIndex={0} role='region' aria-labelledby='days-title'>
            <table data-testid='health-days'>
              <thead>
                <tr>
                  <th scope='col'>{t.figure}</th>
                  {([['today', t.todaySoFar], ['yesterday', t.yesterday]] as const).map(([key, name]) => (
                    <th scope='col' class='num' key={key}>
                      {name} <span class='muted'>{fmt.day(d[key].date)}</span>{' '}
                      <a href={ordersOf(d[key], undefined, false)} aria-label={t.ordersOfWindow(name)}>{t.orders}</a>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {DAY_ROWS.map((row) => (
                  <tr key={row.key}>
                    <th scope='row'>{t[FIGURE_KEYS[row.key]]}</th>
                    {(['today', 'yesterday'] as const).map((key) => {
                      const value = d[key][row.key] as number;
                      return (
                        <td class='num' data-day={key} key={key}>
                          <a href={ordersOf(d[key], row.key, false)} data-figure={row.key}>
                            {row.money ? fmt.money(value) : fmt.int(value)}
                          </a>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}

/** A window's heading: a rolling window's words, or a custom period's store days. */
function windowName(w: Window, rolling: string | undefined) {
  return rolling ?? `${fmt.day(w.first_day!)} – ${fmt.day(w.last_day!)}`;
}

/** The figures behind the scores (administrators only): this period, the one before, the change. */
function HealthFigures({ period, custom }: { period: Period; custom?: Custom }) {
  const t = text(healthText);
  const load = useLoad(
    (signal) =>
      api('get', '/business-health-analytics/figures', { query: { period, ...custom }, signal }).then((r) => r.data),
    [period, custom?.from, custom?.to, custom?.compare],
  );
  const days = t[`period.${period}`];
  const asOfEnd = period !== 'custom';
  return (
    <section class='card' aria-labelledby='figures-title'>
      <h2 id='figures-title'>{t.figuresTitle}</h2>
      <Loaded load={load} label={t.loadingFigures}>
        {(f) => (
          <>
            <p class='muted' data-testid='rolling-window'>
              {asOfEnd
                ? t.rollingWindow(days, fmt.dateTime(f.current.from), fmt.dateTime(f.current.before))
                : t.customWindows(
                  fmt.day(f.current.first_day!),
                  fmt.day(f.current.last_day!),
                  fmt.day(f.previous.first_day!),
                  fmt.day(f.previous.last_day!),
                )}
            </p>
            <div class='table-wrap' tabIndex={0} role='region' aria-labelledby='figures-title'>
              <table data-testid='health-figures'>
                <thead>
                  <tr>
                    <th scope='col'>{t.figure}</th>
                    <th scope='col' class='num'>
                      {windowName(f.current, asOfEnd ? t.lastPeriod(days) : undefined)}{' '}
                      <a
                        href={ordersOf(f.current, undefined, asOfEnd)}
                        aria-label={t.ordersOfWindow(windowName(f.current, asOfEnd ? t.lastPeriod(days) : undefined))}
                      >
                        {t.orders}
                      </a>
                    </th>
                    <th scope='col' class='num'>
                      {windowName(f.previous, asOfEnd ? t.periodBefore(days) : undefined)}{' '}
                      <a
                        href={ordersOf(f.previous, undefined, asOfEnd)}
                        aria-label={t.ordersOfWindow(
                          windowName(f.previous, asOfEnd ? t.periodBefore(days) : undefined),
                        )}
                      >
                        {t.orders}
                      </a>
                    </th>
                    <th scope='col' class='num'>{t.figureChange}</th>
                  </tr>
                </thead>
                <tbody>
                  {FIGURE_ROWS.map((row) => {
                    const show = (w: Window) => {
                      const value = w[row.key] as number | null;
                      const shown = row.money ? fmt.money(value) : fmt.int(value);
                      return row.orders
                        ? <a href={ordersOf(w, row.key, asOfEnd)} data-figure={row.key}>{shown}</a>
                        : <span data-figure={row.key}>{shown}</span>;
                    };
                    return (
                      <tr key={row.key}>
                        <th scope='row'>{t[FIGURE_KEYS[row.key]]}</th>
                        <td class='num' data-window='current'>{show(f.current)}</td>
                        <td class='num' data-window='previous'>{show(f.previous)}</td>
                        <td class='num'>
                          {change(f.current[row.key] as number | null, f.previous[row.key] as number | null)}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            <HealthCampaigns
              current={f.current.marketing}
              previous={f.previous.marketing}
              names={[
                windowName(f.current, asOfEnd ? t.lastPeriod(days) : undefined),
                windowName(f.previous, asOfEnd ? t.periodBefore(days) : undefined),
              ]}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

const MARKETING_ROWS = [
  { key: 'spend', money: true },
  { key: 'attributed_revenue', money: true },
  { key: 'roas' },
  { key: 'attributed_margin', money: true },
  { key: 'margin_roas' },
] as const;

/** The marketing score's figures (spend, attributed revenue, ROAS) and the campaigns behind them, each linked. */
function HealthCampaigns(
  { current, previous, names }: { current: Marketing; previous: Marketing; names: [string, string] },
) {
  const t = text(healthText);
  const shown = (value: number | null, money?: boolean) => (money ? fmt.money(value) : fmt.num(value));
  return (
    <section aria-labelledby='campaigns-title' data-testid='health-campaigns'>
      <h3 id='campaigns-title'>{t.campaignsTitle}</h3>
      <p class='muted'>{t.campaignsLead(fmt.day(current.first_day), fmt.day(current.last_day))}</p>
      <div class='table-wrap' tabIndex={0} role='region' aria-labelledby='campaigns-title'>
        <table>
          <thead>
            <tr>
              <th scope='col'>{t.figure}</th>
              <th scope='col' class='num'>{names[0]}</th>
              <th scope='col' class='num'>{names[1]}</th>
              <th scope='col' class='num'>{t.figureChange}</th>
            </tr>
          </thead>
          <tbody>
            {MARKETING_ROWS.map((row) => (
              <tr key={row.key}>
                <th scope='row'>{t[`figure.${row.key}`]}</th>
                <td class='num' data-marketing={row.key}>{shown(current[row.key], 'money' in row)}</td>
                <td class='num'>{shown(previous[row.key], 'money' in row)}</td>
                <td class='num'>{change(current[row.key], previous[row.key])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h4>{t.topCampaigns}</h4>
      {current.top_campaigns.length === 0
        ? <Empty>{t.noCampaigns}</Empty>
        : (
          <div class='table-wrap' tabIndex={0} role='region' aria-label={t.topCampaigns}>
            <table data-testid='health-top-campaigns'>
              <thead>
                <tr>
                  <th scope='col'>{t.campaign}</th>
                  <th scope='col' class='num'>{t['figure.spend']}</th>
                  <th scope='col' class='num'>{t['figure.attributed_revenue']}</th>
                  <th scope='col' class='num'>{t['figure.roas']}</th>
                  <th scope='col' class='num'>{t.activeDays}</th>
                </tr>
              </thead>
              <tbody>
                {current.top_campaigns.map((c) => (
                  <tr key={c.id}>
                    <th scope='row'>
                      <a href={href('campaigns', { tab: 'list', id: c.id })} data-user-text>{c.name}</a>
                    </th>
                    <td class='num'>
                      {fmt.money(c.spend)}
                      {c.spend_recorded && <span class='muted'>({t.spendRecorded})</span>}
                    </td>
                    <td class='num'>{fmt.money(c.attributed_revenue)}</td>
                    <td class='num'>{fmt.num(c.roas)}</td>
                    <td class='num'>{fmt.int(c.active_days)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </section>
  );
}
