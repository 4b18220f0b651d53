import { useEffect, useMemo } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { Chart, LAYER_COLORS } from '../components/chart.tsx';
import { CsvButton, type CsvColumn, csvFileName } from '../components/csv.tsx';
import { isDate } from '../components/filters.tsx';
import { Field, FormError, useForm } from '../components/form.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader } from '../components/screen.tsx';
import { Badge } from '../components/badge.tsx';
import { layerLabel, LAYERS } from '../format/labels.ts';
import { fmt } from '../format/numbers.ts';
import { storeToday } from '../format/store-time.ts';
import { attributionText } from '../i18n/attribution.ts';
import { text } from '../i18n/index.ts';
import { href, type Route, useParams } from '../router.ts';
import { RevenueAttribution } from './attribution-analysis.tsx';

type Attribution = Ok<paths['/campaigns/attribution']['get']>['data'];

/** The day's split as a file: the table's columns, numbers unrounded, the id other systems join on last. */
function splitColumns(): CsvColumn<Attribution['attributions'][number]>[] {
  const t = text(attributionText);
  return [
    { header: t.campaign, cell: (x) => x.campaign_name },
    { header: t.layer, cell: (x) => layerLabel(x.attribution_layer) },
    { header: t.rawWeight, cell: (x) => x.raw_weight },
    { header: t.share, cell: (x) => x.normalized_weight },
    { header: t.strength, cell: (x) => t[`strength.${x.attribution_strength}`] },
    { header: t.amount, cell: (x) => x.attributed_amount ?? null },
    { header: t.campaignId, cell: (x) => x.campaign_id },
  ];
}

export function AttributionScreen({ route }: { route: Route }) {
  const t = text(attributionText);
  const [params, setParams] = useParams(route);
  const date = isDate(params.date) ? params.date : storeToday();
  const amount = params.amount ?? '100';
  const form = useForm({ date, amount });
  useEffect(() => form.setValues({ date, amount }), [date, amount]);

  const load = useLoad(
    (signal) =>
      api('get', '/campaigns/attribution', { query: { date, order_amount: amount || undefined }, signal }).then((r) =>
        r.data
      ),
    [date, amount],
  );
  // A refusal of the URL's own values (a hand-edited link) shows on the field it names.
  const urlError = load.status === 'error' && 'field' in load.error
    ? (load.error as { field?: string }).field
    : undefined;

  return (
    <section class='stack'>
      <ScreenHeader title={t.title} lead={t.lead} />
      <form
        class='card filters'
        ref={form.formRef}
        noValidate
        aria-label={t.dateAndAmount}
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ date: form.values.date, amount: form.values.amount.trim() });
        }}
      >
        <Field
          label={t.date}
          name='date'
          type='date'
          value={form.values.date}
          required
          error={urlError === 'date' ? load.error?.message : undefined}
          onInput={(e) => form.set('date', e.currentTarget.value)}
        />
        <Field
          label={t.orderAmount}
          name='order_amount'
          inputMode='decimal'
          value={form.values.amount}
          error={urlError === 'order_amount' ? load.error?.message : undefined}
          hint={t.amountHint}
          onInput={(e) => form.set('amount', e.currentTarget.value)}
        />
        <div class='actions'>
          <button type='submit' class='primary'>{t.showSplit}</button>
        </div>
        <FormError message={form.formError} />
      </form>
      <Loaded load={load} label={t.computing}>
        {(a) => <Split a={a} />}
      </Loaded>
      <RevenueAttribution route={route} />
      <p class='muted'>
        {t.rulesBefore}
        <a href={href('campaign-types')}>{t.campaignTypes}</a>
        {t.rulesAfter}
      </p>
    </section>
  );
}

function Split({ a }: { a: Attribution }) {
  const t = text(attributionText);
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
    const campaigns = [...a.attributions].sort((x, y) =>
      LAYERS.indexOf(x.attribution_layer) - LAYERS.indexOf(y.attribution_layer)
    );
    return {
      type: 'doughnut' as const,
      data: {
        labels: campaigns.map((x) => x.campaign_name),
        datasets: [
          {
            label: t.byCampaign,
            data: campaigns.map((x) => x.normalized_weight * 100),
            backgroundColor: campaigns.map((x, i) => shade(LAYER_COLORS[x.attribution_layer], i)),
            borderColor: '#fff',
            borderWidth: 2,
          },
          {
            label: t.byLayer,
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
                `${
                  item.datasetIndex === 1 ? layerLabel(LAYERS[item.dataIndex]) : campaigns[item.dataIndex].campaign_name
                }: ${fmt.pct(item.parsed / 100, 2)}`,
            },
          },
        },
      },
    };
  }, [a]);

  if (a.total_active_campaigns === 0) {
    return <Empty>{t.noneActive(fmt.day(a.attribution_date))}</Empty>;
  }
  return (
    <div class='two-columns'>
      <section class='card' aria-labelledby='split-title'>
        <h2 id='split-title'>
          {t.splitOn(fmt.day(a.attribution_date), hasAmount ? fmt.money(a.order_amount) : undefined)}
        </h2>
        <Chart
          id='attribution-chart'
          config={config}
          height={300}
          label={t.doughnut(byLayer.map((l) => `${layerLabel(l.layer)} ${fmt.pct(l.weight)}`).join(', '))}
          table={{
            caption: t.splitTable,
            columns: [t.campaign, t.layer, t.share, ...(hasAmount ? [t.amount] : [])],
            rows: a.attributions.map((
              x,
            ) => [
              x.campaign_name,
              layerLabel(x.attribution_layer),
              fmt.pct(x.normalized_weight, 2),
              ...(hasAmount ? [fmt.money(x.attributed_amount)] : []),
            ]),
          }}
        />
        <ul class='legend' aria-label={t.layers}>
          {byLayer.map((l) => (
            <li key={l.layer}>
              <span class={`swatch layer-${l.layer}`} aria-hidden='true' /> {layerLabel(l.layer)}:{' '}
              {fmt.pct(l.weight, 2)}
              {hasAmount && ` · ${fmt.money(l.amount)}`}
            </li>
          ))}
        </ul>
      </section>
      <section class='card' aria-labelledby='split-table-title'>
        <h2 id='split-table-title'>{t.activeCampaigns(a.total_active_campaigns)}</h2>
        <p>
          <CsvButton
            filename={csvFileName(t.csvFile, [a.attribution_date])}
            columns={splitColumns()}
            rows={() => a.attributions}
          />
        </p>
        <div class='table-wrap' tabIndex={0} role='region' aria-label={t.activeCampaigns(a.total_active_campaigns)}>
          <table>
            <thead>
              <tr>
                <th scope='col'>{t.campaign}</th>
                <th scope='col'>{t.layer}</th>
                <th scope='col' class='num'>{t.weight}</th>
                <th scope='col'>{t.strength}</th>
                {hasAmount && <th scope='col' class='num'>{t.amount}</th>}
              </tr>
            </thead>
            <tbody>
              {a.attributions.map((x) => (
                <tr key={x.campaign_id}>
                  <td>
                    <a href={href('campaigns', { tab: 'list', id: x.campaign_id })}>{x.campaign_name}</a>
                    <br />
                    <small class='muted'>{fmt.day(x.period_start)} → {fmt.day(x.period_end)}</small>
                  </td>
                  <td>
                    <span class={`swatch layer-${x.attribution_layer}`} aria-hidden='true' />{' '}
                    {layerLabel(x.attribution_layer)}
                  </td>
                  <td class='num'>
                    {fmt.pct(x.normalized_weight, 2)}
                    <br />
                    <small class='muted'>{t.raw(x.raw_weight)}</small>
                  </td>
                  <td>
                    <Badge kind={`strength-${x.attribution_strength}`}>{t[`strength.${x.attribution_strength}`]}</Badge>
                  </td>
                  {hasAmount && <td class='num'>{fmt.money(x.attributed_amount)}</td>}
                </tr>
              ))}
            </tbody>
            {hasAmount && (
              <tfoot>
                <tr>
                  <th scope='row' colSpan={4}>{t.total}</th>
                  <td class='num'>
                    {fmt.money(a.attributions.reduce((sum, x) => sum + (x.attributed_amount ?? 0), 0))}
                  </td>
                </tr>
              </tfoot>
            )}
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
