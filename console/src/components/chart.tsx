import type { ChartConfiguration } from 'chart.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { fmt } from '../format/numbers.ts';

export interface ChartTable {
  caption: string;
  columns: string[];
  rows: (string | number)[][];
}

export const LAYER_COLORS: Record<string, string> = {
  'site-wide': '#2f5fb3',
  'target-oriented': '#b35c00',
  'category-specific': '#2f8a4a',
  general: '#7a7a7a',
};

/**
 * An axis of money, its ticks and tooltips as the store writes amounts (NT$1,200), so a bar's length reads as
 * an amount in the store's currency, never a bare number.
 */
export const moneyAxis = { ticks: { callback: (value: string | number) => fmt.money(Number(value)) } };
/** Tooltips that name the amount on the money axis (`x` for horizontal bars) in the store's currency. */
export const moneyTooltip = (axis: 'x' | 'y') => ({
  callbacks: {
    label: (item: { dataset: { label?: string }; parsed: { x: number | null; y: number | null } }) =>
      `${item.dataset.label ?? ''}: ${fmt.money(item.parsed[axis])}`,
  },
});

type AnyConfig = ChartConfiguration<'bar' | 'line' | 'doughnut', number[], string>;
type Instance = { config: { data: unknown; options?: unknown }; update: () => void; destroy: () => void };

/**
 * Writes the axes' tick labels as drawn onto the canvas (`data-axes`, JSON by axis id): what the picture
 * says on its axes, readable where the canvas's pixels are not (the browser tests check money axes by it).
 */
const AXIS_LABELS = {
  id: 'axis-labels',
  afterUpdate(chart: { canvas: HTMLCanvasElement; scales: Record<string, { ticks: { label?: unknown }[] }> }) {
    chart.canvas.dataset.axes = JSON.stringify(
      Object.fromEntries(
        Object.entries(chart.scales).map(([axis, scale]) => [axis, scale.ticks.map((tick) => tick.label)]),
      ),
    );
  },
};

/**
 * A Chart.js chart (the library loads with the first chart) with its figures as a table beside it: the
 * table is what screen readers and the browser tests read, the picture is for the eye.
 * `data-chart-ready` marks a drawn chart.
 */
export function Chart(
  { config, label, table, height = 280, id }: {
    config: AnyConfig;
    label: string;
    table: ChartTable;
    height?: number;
    id?: string;
  },
) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const instance = useRef<Instance | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState('');

  useEffect(() => {
    let disposed = false;
    import('./chartjs.ts').then(
      ({ Chart: ChartJs }) => {
        if (disposed || !canvas.current) return;
        const options = { responsive: true, maintainAspectRatio: false, ...config.options };
        instance.current = new ChartJs(
          canvas.current,
          { ...config, options, plugins: [AXIS_LABELS] } as AnyConfig,
        ) as unknown as Instance;
        setReady(true);
      },
      () => setFailed(text(common).chartFailed),
    );
    return () => {
      disposed = true;
      instance.current?.destroy();
      instance.current = null;
    };
  }, []);

  useEffect(() => {
    const chart = instance.current;
    if (!chart) return;
    chart.config.data = config.data;
    chart.config.options = { responsive: true, maintainAspectRatio: false, ...config.options };
    chart.update();
  }, [config]);

  return (
    <figure class='chart' id={id}>
      <div class='chart-canvas' style={{ height: `${height}px` }}>
        <canvas ref={canvas} role='img' aria-label={label} data-chart-ready={ready ? 'true' : 'false'}>
          {label}
        </canvas>
      </div>
      {failed && <p class='muted'>{failed}</p>}
      <details class='chart-data'>
        <summary>{text(common).chartFigures(table.caption)}</summary>
        <div class='table-wrap' tabIndex={0} role='region' aria-label={table.caption}>
          <table>
            <caption class='visually-hidden'>{table.caption}</caption>
            <thead>
              <tr>{table.columns.map((c) => <th scope='col' key={c}>{c}</th>)}</tr>
            </thead>
            <tbody>
              {table.rows.map((row, i) => (
                <tr key={i}>
                  {row.map((cell, j) => (j === 0 ? <th scope='row' key={j}>{cell}</th> : <td key={j}>{cell}</td>))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
