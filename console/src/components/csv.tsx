import { useState } from 'preact/hooks';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { type Cell, toCsv } from '../csv.ts';

/** Saves `csv` as a file; the byte order mark makes spreadsheets read it as UTF-8 (Chinese names intact). */
export function download(filename: string, csv: string) {
  const url = URL.createObjectURL(new Blob(['\ufeff', csv], { type: 'text/csv;charset=utf-8' }));
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * A button that gathers a list's rows (every page, when `rows` fetches them) and downloads them as CSV. A
 * long list says how far the gathering is (`progress(rows gathered, of total)`).
 */
export function CsvButton({ filename, columns, rows, label }: {
  filename: string;
  columns: string[];
  rows: (progress: (gathered: number, total: number) => void) => Promise<Cell[][]> | Cell[][];
  label?: string;
}) {
  const t = text(common);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState('');
  const [gathered, setGathered] = useState<[number, number] | null>(null);
  return (
    <span class="csv">
      <button type="button" disabled={pending} onClick={async () => {
        setPending(true);
        setError('');
        setGathered(null);
        try {
          download(filename, toCsv(columns, await rows((done, total) => setGathered([done, total]))));
        } catch (e) {
          setError((e as Error).message);
        } finally {
          setPending(false);
          setGathered(null);
        }
      }}>{pending ? t.preparingCsv : label ?? t.downloadCsv}</button>
      {pending && gathered && <span class="muted" role="status" data-testid="csv-progress">{t.csvProgress(gathered[0], gathered[1])}</span>}
      {error && <span class="field-error" role="alert">{error}</span>}
    </span>
  );
}
