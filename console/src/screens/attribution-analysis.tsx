// Revenue attributed to each campaign over a range of days (revenue_attribution_analysis over HTTP).
import { useMemo } from 'preact/hooks';
import { api } from '../api/client.ts';
import { Chart, LAYER_COLORS } from '../components/chart.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { addDays, fmt, layerLabel, todayUtc, type Layer } from '../format.tsx';
import { href, useParams, type Route } from '../router.ts';
import { RangeForm } from './campaign-analysis.tsx';

const isDate = (s?: string) => !!s && /^\d{4}-\d{2}-\d{2}$/.test(s);

export function RevenueAttribution({ route }: { route: Route }) {
  const [params, setParams] = useParams(route);
  const from = isDate(params.from) ? params.from : addDays(todayUtc(), -29);
  const to = isDate(params.to) ? params.to : todayUtc();
  const load = useLoad((signal) => api('get', '/campaigns/revenue-attribution', { query: { from, to }, signal }).then((r) => r.data.campaigns), [from, to]);
  return (
    <section class="card stack" aria-labelledby="revenue-title">
      <h2 id="revenue-title">Revenue by campaign over a range</h2>
      <RangeForm key={`${from}:${to}`} from={from} to={to} label="Revenue range" onChange={(f, t) => setParams({ from: f, to: t })} />
      <Loaded load={load} label="Loading attributed revenue…">
        {(campaigns) => campaigns.length === 0 ? <Empty>No campaign counted between {from} and {to}.</Empty> : <RevenueTable campaigns={campaigns} from={from} to={to} />}
      </Loaded>
    </section>
  );
}

type Row = { campaign_id: string; campaign_name: string; attribution_layer: Layer; active_days: number; first_active_date: string; last_active_date: string; total_attributed_revenue: number; avg_attribution_weight: number };

function RevenueTable({ campaigns, from, to }: { campaigns: Row[]; from: string; to: string }) {
  const sorted = [...campaigns].sort((a, b) => b.total_attributed_revenue - a.total_attributed_revenue);
  const top = sorted.slice(0, 12);
  const config = useMemo(() => ({
    type: 'bar' as const,
    data: {
      labels: top.map((c) => c.campaign_name),
      datasets: [{ label: 'Attributed revenue', data: top.map((c) => c.total_attributed_revenue), backgroundColor: top.map((c) => LAYER_COLORS[c.attribution_layer]), maxBarThickness: 20 }],
    },
    options: { indexAxis: 'y' as const, plugins: { legend: { display: false } } },
  }), [campaigns]);
  return (
    <>
      <Chart id="revenue-chart" config={config} height={Math.max(160, top.length * 28)} label={`Horizontal bars: attributed revenue of the top ${top.length} campaigns, ${from} to ${to}`}
        table={{ caption: 'Attributed revenue by campaign', columns: ['Campaign', 'Layer', 'Revenue', 'Days'], rows: sorted.map((c) => [c.campaign_name, layerLabel(c.attribution_layer), fmt.money(c.total_attributed_revenue), c.active_days]) }} />
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">Campaign</th><th scope="col">Layer</th><th scope="col" class="num">Revenue</th><th scope="col" class="num">Days</th><th scope="col" class="num">Avg weight</th><th scope="col">Counted</th></tr></thead>
          <tbody>
            {sorted.map((c) => (
              <tr key={c.campaign_id}>
                <td><a href={href('campaigns', { tab: 'list', id: c.campaign_id })}>{c.campaign_name}</a></td>
                <td><span class={`swatch layer-${c.attribution_layer}`} aria-hidden="true" /> {layerLabel(c.attribution_layer)}</td>
                <td class="num">{fmt.money(c.total_attributed_revenue)}</td>
                <td class="num">{c.active_days}</td>
                <td class="num">{fmt.pct(c.avg_attribution_weight, 2)}</td>
                <td>{c.first_active_date} → {c.last_active_date}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
