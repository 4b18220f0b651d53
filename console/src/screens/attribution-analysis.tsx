// Revenue attributed to each campaign over a range of days (revenue_attribution_analysis over HTTP).
import { useMemo } from 'preact/hooks';
import { api } from '../api/client.ts';
import { Chart, LAYER_COLORS, moneyAxis, moneyTooltip } from '../components/chart.tsx';
import { CsvButton, type CsvColumn, csvFileName } from '../components/csv.tsx';
import { isDate, RangeForm } from '../components/filters.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { type Layer, layerLabel } from '../format/labels.ts';
import { fmt } from '../format/numbers.ts';
import { addDays, storeToday } from '../format/store-time.ts';
import { attributionText } from '../i18n/attribution.ts';
import { text } from '../i18n/index.ts';
import { href, type Route, useParams } from '../router.ts';

export function RevenueAttribution({ route }: { route: Route }) {
  const t = text(attributionText);
  const [params, setParams] = useParams(route);
  const from = isDate(params.from) ? params.from : addDays(storeToday(), -29);
  const to = isDate(params.to) ? params.to : storeToday();
  const load = useLoad(
    (signal) =>
      api('get', '/campaigns/revenue-attribution', { query: { from, to }, signal }).then((r) => r.data.campaigns),
    [from, to],
  );
  return (
    <section class='card stack' aria-labelledby='revenue-title'>
      <h2 id='revenue-title'>{t.revenueTitle}</h2>
      <RangeForm
        key={`${from}:${to}`}
        from={from}
        to={to}
        label={t.revenueRange}
        onChange={(f, until) => setParams({ from: f, to: until })}
      />
      <Loaded load={load} label={t.loadingRevenue}>
        {(campaigns) =>
          campaigns.length === 0
            ? <Empty>{t.noneCounted(fmt.day(from), fmt.day(to))}</Empty>
            : <RevenueTable campaigns={campaigns} from={from} to={to} />}
      </Loaded>
    </section>
  );
}

type Row = {
  campaign_id: string;
  campaign_name: string;
  attribution_layer: Layer;
  active_days: number;
  first_active_date: string;
  last_active_date: string;
  total_attributed_revenue: number;
  avg_attribution_weight: number;
};

/** The range's revenue by campaign as a file: the table's columns, its counted span as two days. */
function revenueColumns(): CsvColumn<Row>[] {
  const t = text(attributionText);
  return [
    { header: t.campaign, cell: (c) => c.campaign_name },
    { header: t.layer, cell: (c) => layerLabel(c.attribution_layer) },
    { header: t.revenue, cell: (c) => c.total_attributed_revenue },
    { header: t.days, cell: (c) => c.active_days },
    { header: t.avgWeight, cell: (c) => c.avg_attribution_weight },
    { header: t.firstCounted, cell: (c) => c.first_active_date },
    { header: t.lastCounted, cell: (c) => c.last_active_date },
    { header: t.campaignId, cell: (c) => c.campaign_id },
  ];
}

function RevenueTable({ campaigns, from, to }: { campaigns: Row[]; from: string; to: string }) {
  const t = text(attributionText);
  const sorted = [...campaigns].sort((a, b) => b.total_attributed_revenue - a.total_attributed_revenue);
  const top = sorted.slice(0, 12);
  const config = useMemo(() => ({
    type: 'bar' as const,
    data: {
      labels: top.map((c) => c.campaign_name),
      datasets: [{
        label: t.attributedRevenue,
        data: top.map((c) => c.total_attributed_revenue),
        backgroundColor: top.map((c) => LAYER_COLORS[c.attribution_layer]),
        maxBarThickness: 20,
      }],
    },
    options: {
      indexAxis: 'y' as const,
      plugins: { legend: { display: false }, tooltip: moneyTooltip('x') },
      scales: { x: moneyAxis },
    },
  }), [campaigns]);
  return (
    <>
      <Chart
        id='revenue-chart'
        config={config}
        height={Math.max(160, top.length * 28)}
        label={t.revenueBars(top.length, fmt.day(from), fmt.day(to))}
        table={{
          caption: t.revenueTable,
          columns: [t.campaign, t.layer, t.revenue, t.days],
          rows: sorted.map((
            c,
          ) => [
            c.campaign_name,
            layerLabel(c.attribution_layer),
            fmt.money(c.total_attributed_revenue),
            c.active_days,
          ]),
        }}
      />
      <p>
        <CsvButton filename={csvFileName(t.revenueFile, [from, to])} columns={revenueColumns()} rows={() => sorted} />
      </p>
      <div class='table-wrap' tabIndex={0} role='region' aria-label={t.revenueTable}>
        <table>
          <thead>
            <tr>
              <th scope='col'>{t.campaign}</th>
              <th scope='col'>{t.layer}</th>
              <th scope='col' class='num'>{t.revenue}</th>
              <th scope='col' class='num'>{t.days}</th>
              <th scope='col' class='num'>{t.avgWeight}</th>
              <th scope='col'>{t.counted}</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((c) => (
              <tr key={c.campaign_id}>
                <td>
                  <a href={href('campaigns', { tab: 'list', id: c.campaign_id })}>{c.campaign_name}</a>
                </td>
                <td>
                  <span class={`swatch layer-${c.attribution_layer}`} aria-hidden='true' />{' '}
                  {layerLabel(c.attribution_layer)}
                </td>
                <td class='num'>{fmt.money(c.total_attributed_revenue)}</td>
                <td class='num'>{c.active_days}</td>
                <td class='num'>{fmt.pct(c.avg_attribution_weight, 2)}</td>
                <td>{fmt.day(c.first_active_date)} → {fmt.day(c.last_active_date)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope='row' colSpan={2}>{t.total}</th>
              <td class='num'>{fmt.money(sorted.reduce((sum, c) => sum + c.total_attributed_revenue, 0))}</td>
              <td colSpan={3} />
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );
}
