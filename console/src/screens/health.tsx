import { useMemo } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { Chart } from '../components/chart.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader } from '../components/screen.tsx';
import { Badge, fmt } from '../format.tsx';
import { href, navigate, type Route } from '../router.ts';

type Report = Ok<paths['/business-health-analytics']['post']>['data'];
type Figures = Ok<paths['/business-health-analytics/figures']['get']>['data'];
type Window = Figures['current'];
const PERIODS = [
  { id: '7d', label: '7 days' },
  { id: '30d', label: '30 days' },
  { id: '90d', label: '90 days' },
] as const;
type Period = (typeof PERIODS)[number]['id'];

const DIMENSIONS: { key: keyof Report['metrics']; label: string }[] = [
  { key: 'revenue', label: 'Revenue' },
  { key: 'satisfaction', label: 'Satisfaction' },
  { key: 'fulfillment', label: 'Fulfillment' },
  { key: 'support', label: 'Support' },
  { key: 'products', label: 'Products' },
  { key: 'marketing', label: 'Marketing' },
  { key: 'system', label: 'System' },
];
const DIRECTION_WORDS: Record<string, string> = { 上升: 'Rising', 下降: 'Falling', 持平: 'Flat' };

export function HealthScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const requested = route.params.get('period');
  const period: Period = PERIODS.some((p) => p.id === requested) ? (requested as Period) : '30d';
  const load = useLoad(
    (signal) => api('post', '/business-health-analytics', { body: { period }, signal }).then((r) => r.data),
    [period],
  );

  return (
    <section aria-labelledby="health-title">
      <ScreenHeader title="Business health" lead="The store's score, its seven dimensions, the week's trend and what to do next.">
        <fieldset class="segmented">
          <legend>Period</legend>
          {PERIODS.map((p) => (
            <label key={p.id}>
              <input type="radio" name="period" value={p.id} checked={p.id === period} onChange={() => navigate('health', { period: p.id })} />
              <span>{p.label}</span>
            </label>
          ))}
        </fieldset>
      </ScreenHeader>
      <Loaded load={load} label="Computing the health report…">
        {(report) => <HealthReport report={report} period={period} />}
      </Loaded>
      {isAdmin && <HealthFigures period={period} />}
    </section>
  );
}

function HealthReport({ report, period }: { report: Report; period: Period }) {
  const s = report.scoreDetails;
  const dimensions = DIMENSIONS.map((d) => ({ ...d, value: report.metrics[d.key] }));
  const config = useMemo(() => ({
    type: 'bar' as const,
    data: {
      labels: dimensions.map((d) => d.label),
      datasets: [{
        label: 'Score (0–10)',
        data: dimensions.map((d) => d.value ?? 0),
        backgroundColor: dimensions.map((d) => (d.value === null ? '#bbbbbb' : d.value >= 7 ? '#2f8a4a' : d.value >= 4 ? '#c28a00' : '#c0392b')),
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
    const values = [trend.customerChange, trend.operationalChange, (trend.customerChange + trend.operationalChange) / 2];
    return {
      type: 'bar' as const,
      data: {
        labels: ['Customer quality', 'Operational efficiency', 'Average'],
        datasets: [{ label: 'Change (%)', data: values, backgroundColor: values.map((v) => (v >= 0 ? '#2f8a4a' : '#c0392b')), maxBarThickness: 48 }],
      },
      options: { plugins: { legend: { display: false } }, scales: { y: { ticks: { callback: (v: string | number) => `${v}%` } } } },
    };
  }, [report]);

  return (
    <div class="stack">
      <div class="score-cards">
        <div class="card score">
          <span class="label">Overall score</span>
          <span class="big" data-testid="overall-score">{s.overallScore.toFixed(2)}</span>
          <span class="rating">{s.rating}</span>
        </div>
        <div class="card"><span class="label">Customer quality</span><span class="mid">{fmt.num(s.customerQuality)}</span></div>
        <div class="card"><span class="label">Operational efficiency</span><span class="mid">{fmt.num(s.operationalEfficiency)}</span></div>
        <div class="card"><span class="label">Support effectiveness</span><span class="mid">{fmt.num(s.supportEffectiveness)}</span></div>
      </div>
      <div class="two-columns">
        <section class="card" aria-labelledby="dimensions-title">
          <h2 id="dimensions-title">Seven dimensions <span class="muted">(0–10, last {period})</span></h2>
          <Chart
            id="dimensions-chart"
            config={config}
            label={`Bar chart of the seven dimensions: ${dimensions.map((d) => `${d.label} ${d.value === null ? 'not measured' : d.value.toFixed(2)}`).join(', ')}`}
            table={{ caption: 'Dimensions', columns: ['Dimension', 'Score (0–10)'], rows: dimensions.map((d) => [d.label, d.value === null ? 'not measured' : d.value.toFixed(2)]) }}
          />
          <p class="muted">Marketing reads 0 in this version: seed 03 reserves it for version 2.0 and gives it no data.</p>
        </section>
        <section class="card" aria-labelledby="trend-title">
          <h2 id="trend-title">Trend <span class="muted">(this week against the week before)</span></h2>
          {trend && trendConfig ? (
            <>
              <p class="trend">
                <Badge kind={trend.direction === '上升' ? 'good' : trend.direction === '下降' ? 'bad' : 'neutral'}>
                  {`${DIRECTION_WORDS[trend.direction] ?? trend.direction} ${trend.direction}`}
                </Badge>{' '}
                {fmt.num(trend.change)}% · {trend.description}
              </p>
              <Chart
                id="trend-chart"
                config={trendConfig}
                height={200}
                label={`Week-over-week change: customer quality ${trend.customerChange}%, operational efficiency ${trend.operationalChange}%`}
                table={{ caption: 'Trend', columns: ['Figure', 'Change (%)'], rows: [['Customer quality', trend.customerChange], ['Operational efficiency', trend.operationalChange]] }}
              />
            </>
          ) : <Empty>No trend in this report.</Empty>}
        </section>
      </div>
      <section aria-labelledby="insights-title">
        <h2 id="insights-title">Insights</h2>
        {report.insights?.length ? (
          <ul class="insights">
            {report.insights.map((insight, i) => (
              <li key={i} class={`card insight insight-${insight.type}`}>
                <h3>{insight.title}</h3>
                <p>
                  <Badge kind={insight.type}>{insight.type}</Badge> <Badge kind={`impact-${insight.impact}`}>{`${insight.impact} impact`}</Badge>{' '}
                  <span class="muted">confidence {fmt.pct(insight.confidence, 0)} · {insight.category}</span>
                </p>
                <p>{insight.description}</p>
                {insight.actions.length > 0 && (
                  <>
                    <h4>What to do</h4>
                    <ul>{insight.actions.map((a) => <li key={a}>{a}</li>)}</ul>
                  </>
                )}
              </li>
            ))}
          </ul>
        ) : <Empty>No insight applies to this period.</Empty>}
      </section>
      <p class="muted">As of {fmt.dateTime(report.timestamp)}.</p>
    </div>
  );
}

/** The figures of one window, in the order the staff read them; `orders` marks those the orders list sums. */
const FIGURE_ROWS: { key: keyof Window; label: string; money?: boolean; orders?: boolean }[] = [
  { key: 'revenue', label: 'Revenue', money: true, orders: true },
  { key: 'counted_orders', label: 'Counted orders', orders: true },
  { key: 'average_order_value', label: 'Average order value', money: true, orders: true },
  { key: 'orders', label: 'Orders placed', orders: true },
  { key: 'completed', label: 'Completed', orders: true },
  { key: 'cancelled', label: 'Cancelled', orders: true },
  { key: 'active_customers', label: 'Active customers' },
  { key: 'new_customers', label: 'New customers' },
  { key: 'tickets_opened', label: 'Tickets opened' },
  { key: 'tickets_resolved', label: 'Tickets resolved' },
];

/** The link to the orders a window's figures count: its window, counted as of its end. */
const ordersOf = (w: Window) => href('orders', { ordered_from: w.from, ordered_before: w.before, as_of: w.before });

function change(current: number | null, previous: number | null) {
  if (current === null || previous === null || previous === 0) return '—';
  const pct = ((current - previous) / Math.abs(previous)) * 100;
  return `${pct > 0 ? '+' : ''}${fmt.num(Math.round(pct * 10) / 10)}%`;
}

/** The figures behind the scores (administrators only): this period, the one before, the change. */
function HealthFigures({ period }: { period: Period }) {
  const load = useLoad(
    (signal) => api('get', '/business-health-analytics/figures', { query: { period }, signal }).then((r) => r.data),
    [period],
  );
  return (
    <section class="card" aria-labelledby="figures-title">
      <h2 id="figures-title">Figures behind the scores</h2>
      <Loaded load={load} label="Loading the figures…">
        {(f) => (
          <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="figures-title">
            <table data-testid="health-figures">
              <thead>
                <tr>
                  <th scope="col">Figure</th>
                  <th scope="col" class="num">Last {period} <a href={ordersOf(f.current)}>orders</a></th>
                  <th scope="col" class="num">The {period} before <a href={ordersOf(f.previous)}>orders</a></th>
                  <th scope="col" class="num">Change</th>
                </tr>
              </thead>
              <tbody>
                {FIGURE_ROWS.map((row) => {
                  const show = (w: Window) => {
                    const value = w[row.key] as number | null;
                    const text = row.money ? fmt.money(value) : fmt.int(value);
                    return row.orders ? <a href={ordersOf(w)} data-figure={row.key}>{text}</a> : <span data-figure={row.key}>{text}</span>;
                  };
                  return (
                    <tr key={row.key}>
                      <th scope="row">{row.label}</th>
                      <td class="num" data-window="current">{show(f.current)}</td>
                      <td class="num" data-window="previous">{show(f.previous)}</td>
                      <td class="num">{change(f.current[row.key] as number | null, f.previous[row.key] as number | null)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}
