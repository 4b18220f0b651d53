import { useEffect, useMemo } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { Chart, LAYER_COLORS } from '../components/chart.tsx';
import { Field, FormError, useForm } from '../components/form.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader } from '../components/screen.tsx';
import { Badge, fmt, layerLabel, LAYERS, todayUtc } from '../format.tsx';
import { href, useParams, type Route } from '../router.ts';
import { RevenueAttribution } from './attribution-analysis.tsx';

type Attribution = Ok<paths['/campaigns/attribution']['get']>['data'];

export function AttributionScreen({ route }: { route: Route }) {
  const [params, setParams] = useParams(route);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(params.date ?? '') ? params.date : todayUtc();
  const amount = params.amount ?? '100';
  const form = useForm({ date, amount });
  useEffect(() => form.setValues({ date, amount }), [date, amount]);

  const load = useLoad(
    (signal) => api('get', '/campaigns/attribution', { query: { date, order_amount: amount || undefined }, signal }).then((r) => r.data),
    [date, amount],
  );
  // A refusal of the URL's own values (a hand-edited link) shows on the field it names.
  const urlError = load.status === 'error' && 'field' in load.error ? (load.error as { field?: string }).field : undefined;

  return (
    <section class="stack">
      <ScreenHeader title="Attribution" lead="How a day's order revenue splits across the campaigns active that day, by campaign and by layer." />
      <form class="card filters" ref={form.formRef} noValidate aria-label="Date and amount" onSubmit={(e) => {
        e.preventDefault();
        setParams({ date: form.values.date, amount: form.values.amount.trim() });
      }}>
        <Field label="Date (UTC)" name="date" type="date" value={form.values.date} required
          error={urlError === 'date' ? load.error?.message : undefined} onInput={(e) => form.set('date', e.currentTarget.value)} />
        <Field label="Order amount" name="order_amount" inputMode="decimal" value={form.values.amount}
          error={urlError === 'order_amount' ? load.error?.message : undefined} hint="At least 0, at most 2 decimals"
          onInput={(e) => form.set('amount', e.currentTarget.value)} />
        <div class="actions"><button type="submit" class="primary">Show the split</button></div>
        <FormError message={form.formError} />
      </form>
      <Loaded load={load} label="Computing the attribution…">
        {(a) => <Split a={a} />}
      </Loaded>
      <RevenueAttribution route={route} />
      <p class="muted">
        The rules: <a href={href('campaign-types')}>campaign types</a> set each campaign's default weight and priority; site-wide counts 1.5×,
        target-oriented 1.25×, category-specific 1×.
      </p>
    </section>
  );
}

function Split({ a }: { a: Attribution }) {
  const byLayer = LAYERS.map((layer) => {
    const rows = a.attributions.filter((x) => x.attribution_layer === layer);
    return {
      layer,
      weight: rows.reduce((sum, x) => sum + x.normalized_weight, 0),
      amount: rows.reduce((sum, x) => sum + (x.attributed_amount ?? 0), 0),
    };
  }).filter((l) => l.weight > 0);
  const hasAmount = a.order_amount !== undefined;

  // Two rings: the layers inside, their campaigns outside, in the same colours.
  const config = useMemo(() => {
    const campaigns = [...a.attributions].sort((x, y) => LAYERS.indexOf(x.attribution_layer) - LAYERS.indexOf(y.attribution_layer));
    return {
      type: 'doughnut' as const,
      data: {
        labels: campaigns.map((x) => x.campaign_name),
        datasets: [
          {
            label: 'By campaign',
            data: campaigns.map((x) => x.normalized_weight * 100),
            backgroundColor: campaigns.map((x, i) => shade(LAYER_COLORS[x.attribution_layer], i)),
            borderColor: '#fff',
            borderWidth: 2,
          },
          {
            label: 'By layer',
            data: LAYERS.map((l) => (byLayer.find((x) => x.layer === l)?.weight ?? 0) * 100),
            backgroundColor: LAYERS.map((l) => LAYER_COLORS[l]),
            borderColor: '#fff',
            borderWidth: 2,
          },
        ],
      },
      options: {
        cutout: '30%',
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              label: (item: { datasetIndex: number; dataIndex: number; parsed: number }) =>
                item.datasetIndex === 1 ? `${layerLabel(LAYERS[item.dataIndex])}: ${item.parsed.toFixed(2)}%` : `${campaigns[item.dataIndex].campaign_name}: ${item.parsed.toFixed(2)}%`,
            },
          },
        },
      },
    };
  }, [a]);

  if (a.total_active_campaigns === 0) {
    return <Empty>No campaign was active on {a.attribution_date}: the whole amount stays unattributed.</Empty>;
  }
  return (
    <div class="two-columns">
      <section class="card" aria-labelledby="split-title">
        <h2 id="split-title">Split on {a.attribution_date}{hasAmount && <> of {fmt.money(a.order_amount)}</>}</h2>
        <Chart id="attribution-chart" config={config} height={300}
          label={`Doughnut chart: inner ring by layer (${byLayer.map((l) => `${layerLabel(l.layer)} ${fmt.pct(l.weight)}`).join(', ')}), outer ring by campaign`}
          table={{
            caption: 'Split by campaign',
            columns: ['Campaign', 'Layer', 'Share', ...(hasAmount ? ['Amount'] : [])],
            rows: a.attributions.map((x) => [x.campaign_name, layerLabel(x.attribution_layer), fmt.pct(x.normalized_weight, 2), ...(hasAmount ? [fmt.money(x.attributed_amount)] : [])]),
          }} />
        <ul class="legend" aria-label="Layers">
          {byLayer.map((l) => (
            <li key={l.layer}><span class={`swatch layer-${l.layer}`} aria-hidden="true" /> {layerLabel(l.layer)}: {fmt.pct(l.weight, 2)}{hasAmount && ` · ${fmt.money(l.amount)}`}</li>
          ))}
        </ul>
      </section>
      <section class="card" aria-labelledby="split-table-title">
        <h2 id="split-table-title">{a.total_active_campaigns} active campaign{a.total_active_campaigns === 1 ? '' : 's'}</h2>
        <div class="table-wrap">
          <table>
            <thead>
              <tr><th scope="col">Campaign</th><th scope="col">Layer</th><th scope="col" class="num">Weight</th><th scope="col">Strength</th>{hasAmount && <th scope="col" class="num">Amount</th>}</tr>
            </thead>
            <tbody>
              {a.attributions.map((x) => (
                <tr key={x.campaign_id}>
                  <td><a href={href('campaigns', { tab: 'list', id: x.campaign_id })}>{x.campaign_name}</a><br /><small class="muted">{x.period_start} → {x.period_end}</small></td>
                  <td><span class={`swatch layer-${x.attribution_layer}`} aria-hidden="true" /> {layerLabel(x.attribution_layer)}</td>
                  <td class="num">{fmt.pct(x.normalized_weight, 2)}<br /><small class="muted">raw {x.raw_weight}</small></td>
                  <td><Badge kind={`strength-${x.attribution_strength}`}>{x.attribution_strength}</Badge></td>
                  {hasAmount && <td class="num">{fmt.money(x.attributed_amount)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}

/** Campaigns of one layer in alternating tones of the layer's colour, so neighbours stay apart. */
function shade(hex: string, index: number) {
  const alpha = [1, 0.75, 0.55, 0.85, 0.65][index % 5];
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}
