import { useState } from 'preact/hooks';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { type Cell, toCsv } from '../csv.ts';
import { spreadsheetTime, storeToday, storeZoneName } from '../format/store-time.ts';

/** A column of an exported list: its heading in the console's language, and its cell for each row. */
export interface CsvColumn<Row> {
  header: string;
  cell: (row: Row) => Cell;
}

/**
 * A column of instants, as spreadsheets read dates (`2026-11-21 00:30:00`, the store's wall clock), its
 * heading naming the store's zone, since the file carries no offset.
 */
export function timeColumn<Row>(header: string, instant: (row: Row) => string | null | undefined): CsvColumn<Row> {
  return { header: text(common).csvTimeColumn(header, storeZoneName()), cell: (row) => spreadsheetTime(instant(row)) };
}

/** A yes-or-no column, in words. */
export function yesNoColumn<Row>(header: string, value: (row: Row) => boolean): CsvColumn<Row> {
  return { header, cell: (row) => (value(row) ? text(common).csvYes : text(common).csvNo) };
}

/**
 * A file name that says what the list is and when: its store days (`訂單_2026-11-01_2026-11-30.csv`), or
 * the day it was taken for a list as it stands (`活動_2026-11-27.csv`).
 */
export function csvFileName(what: string, days: (string | undefined)[] = []): string {
  const named = days.filter(Boolean);
  return `${what}_${(named.length ? named : [storeToday()]).join('_')}.csv`;
}

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
 * A button that gathers a list's rows (every page, when `rows` fetches them) and downloads them as CSV, in
 * the console's language: headings and words as on screen, numbers bare. A long list says how far the
 * gathering is (`progress(rows gathered, of total)`).
 */
export function CsvButton<Row>({ filename, columns, rows, label }: {
  filename: string;
  columns: CsvColumn<Row>[];
  rows: (progress: (gathered: number, total: number) => void) => Promise<Row[]> | Row[];
  label?: string;
}) {
  const t = text(common);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState('');
  const [gathered, setGathered] = useState<[number, number] | null>(null);
  return (
    <span class='csv'>
      <button
        type='button'
        disabled={pending}
        onClick={async () => {
          setPending(true);
          setError('');
          setGathered(null);
          try {
            const gatheredRows = await rows((done, total) => setGathered([done, total]));
            download(
              filename,
              toCsv(columns.map((c) => c.header), gatheredRows.map((row) => columns.map((c) => c.cell(row)))),
            );
          } catch (e) {
            setError((e as Error).message);
          } finally {
            setPending(false);
            setGathered(null);
          }
        }}
      >
        {pending ? t.preparingCsv : label ?? t.downloadCsv}
      </button>
      {pending && gathered && (
        <span class='muted' role='status' data-testid='csv-progress'>{t.csvProgress(gathered[0], gathered[1])}</span>
      )}
      {error && <span class='field-error' role='alert'>{error}</span>}
    </span>
  );
}
