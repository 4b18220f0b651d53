// The filters that lists and analyses keep in the URL: a search box, and a range of days.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { fmt } from '../format/numbers.ts';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { type Route, useParams } from '../router.ts';
import { Field } from './form.tsx';
import { searchLength } from '../../../supabase/functions/orders/search.ts';

/** A day as the URL and the API write it (`YYYY-MM-DD`). */
export const isDate = (s?: string) => !!s && /^\d{4}-\d{2}-\d{2}$/.test(s);
/** Days between two `YYYY-MM-DD` days, both counted. */
const daysIn = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;

/**
 * The search box's text and the URL's `search`, kept in step. Typing filters after a pause, replacing
 * the URL rather than stacking history entries; `submit` filters at once; a search changed elsewhere
 * (a link, Back) replaces what was typed. A new search starts at the first page.
 */
export function useDebouncedSearch(route: Route, minCharacters = 1) {
  const [params, setParams] = useParams(route);
  const [search, setSearch] = useState(params.search ?? '');
  // A search too short for the API is not sent: the box says how many characters it takes (`tooShort`), a
  // Chinese character counting as the API counts it.
  const tooShort = search.trim().length > 0 && searchLength(search) < minCharacters;
  useEffect(() => {
    if ((params.search ?? '') === search || tooShort) return;
    const timer = setTimeout(() => setParams({ search: search || undefined, page: undefined }, true), 300);
    return () => clearTimeout(timer);
  }, [search]);
  useEffect(() => setSearch(params.search ?? ''), [params.search]);
  const submit = () => !tooShort && setParams({ search: search || undefined, page: undefined });
  return { search, setSearch, submit, tooShort };
}

/**
 * A list's filter form, led by its search box; `children` are the list's other filters. `minCharacters`:
 * the fewest its API's search takes.
 */
export function SearchFilters({ route, label, placeholder, minCharacters, children }: {
  route: Route;
  label: string;
  placeholder: string;
  minCharacters?: number;
  children: ComponentChildren;
}) {
  const { search, setSearch, submit, tooShort } = useDebouncedSearch(route, minCharacters);
  return (
    <form
      class='filters'
      role='search'
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Field
        label={text(common).search}
        name='search'
        type='search'
        value={search}
        placeholder={placeholder}
        hint={tooShort ? text(common).searchAtLeast(fmt.int(minCharacters!)) : undefined}
        onInput={(e) => setSearch(e.currentTarget.value)}
      />
      {children}
    </form>
  );
}

/**
 * A from/to pair kept in the URL. What the API would refuse (an end before the start, more than 366 days)
 * is said on the field before anything is sent, so no bad range reaches the URL to be retried.
 */
export function RangeForm(
  { from, to, onChange, label }: {
    from: string;
    to: string;
    onChange: (from: string, to: string) => void;
    label: string;
  },
) {
  const t = text(common);
  const [f, setF] = useState(from);
  const [until, setUntil] = useState(to);
  const [error, setError] = useState('');
  return (
    <form
      class='filters'
      aria-label={label}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const days = isDate(f) && isDate(until) ? daysIn(f, until) : 0;
        const problem = days < 1 ? t.endBeforeStart : days > 366 ? t.rangeTooLong(fmt.int(days)) : '';
        setError(problem);
        if (problem) e.currentTarget.querySelector<HTMLElement>('[name="to"]')?.focus();
        else onChange(f, until);
      }}
    >
      <Field label={t.rangeFrom} name='from' type='date' value={f} onInput={(e) => setF(e.currentTarget.value)} />
      <Field
        label={t.rangeTo}
        name='to'
        type='date'
        value={until}
        hint={t.rangeHint}
        error={error}
        onInput={(e) => {
          setUntil(e.currentTarget.value);
          setError('');
        }}
      />
      <div class='actions'>
        <button type='submit'>{t.rangeShow}</button>
      </div>
    </form>
  );
}
