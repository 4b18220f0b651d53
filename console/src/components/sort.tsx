import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';

/**
 * A column head that sorts its list by the API (the list's order lives in the URL): a click sorts by
 * this column, a second click turns the order around; `aria-sort` says which way it stands.
 */
export function SortHeader<C extends string>({ column, label, sorted, ascending, onSort, className }: {
  column: C;
  label: string;
  /** The column the list is sorted by, if any of these. */
  sorted?: C;
  ascending: boolean;
  onSort: (column: C) => void;
  className?: string;
}) {
  const active = sorted === column;
  return (
    <th scope='col' class={className} aria-sort={active ? (ascending ? 'ascending' : 'descending') : undefined}>
      <button type='button' class='sort' onClick={() => onSort(column)} title={text(common).sortBy(label)}>
        {label} <span aria-hidden='true'>{active ? (ascending ? '▲' : '▼') : '↕'}</span>
      </button>
    </th>
  );
}
