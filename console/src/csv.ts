/** Lists as CSV files, pure (no DOM): the console's exports and their tests use the same code. */
export type Cell = string | number | boolean | null | undefined;

/**
 * A table as CSV (RFC 4180): every cell quoted when it holds a comma, quote or line break. Text that a
 * spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage return: a campaign or
 * product named `=HYPERLINK(...)`) gets a leading apostrophe, so opening the file runs nothing. Numbers are
 * written as numbers, unformatted, so they sum in any spreadsheet.
 */
export function toCsv(columns: string[], rows: Cell[][]): string {
  const cell = (value: Cell) => {
    if (value === null || value === undefined) return '';
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
    return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  return [columns, ...rows].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}
