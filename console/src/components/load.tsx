import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';

export type Load<T> =
  | { status: 'loading'; data?: T; error?: undefined; reload: () => void }
  | { status: 'ready'; data: T; error?: undefined; reload: () => void }
  | { status: 'error'; data?: T; error: Error; reload: () => void };

/** What a write can make stale, as the loads that show it name it. */
export type Shown =
  | 'campaigns'
  | 'campaign'
  | 'products'
  | 'product'
  | 'campaign-types'
  | 'stock-summary'
  | 'expiring'
  | 'order'
  | 'orders';

/** The loads on screen that name what they show, by that name. */
const showing = new Map<Shown, Set<() => void>>();

/**
 * Says that a write changed these data: every load on screen that shows one of them loads again. The
 * writer need not know where those loads sit, so a change made in a detail refreshes the list beside it.
 */
export function changed(...data: Shown[]) {
  for (const name of data) showing.get(name)?.forEach((reload) => reload());
}

/**
 * Runs `fetcher` whenever `deps` change (the previous request is aborted), on `reload()`, and after a
 * `changed(shows)`. While a new request runs, the previous data stays (`status` is loading), so lists do
 * not flash empty.
 */
export function useLoad<T>(fetcher: (signal: AbortSignal) => Promise<T>, deps: unknown[], shows?: Shown): Load<T> {
  const [state, setState] = useState<{ status: 'loading' | 'ready' | 'error'; data?: T; error?: Error }>({
    status: 'loading',
  });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    if (!shows) return;
    const loads = showing.get(shows) ?? new Set();
    loads.add(reload);
    showing.set(shows, loads);
    return () => void loads.delete(reload);
  }, [shows]);
  const latest = useRef(fetcher);
  latest.current = fetcher;
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ status: 'loading', data: s.data }));
    latest.current(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ status: 'ready', data }),
      (error: Error) => {
        if (controller.signal.aborted || error.name === 'AbortError') return;
        setState((s) => ({ status: 'error', data: s.data, error }));
      },
    );
    return () => controller.abort();
  }, [...deps, tick]);
  return { ...state, reload } as Load<T>;
}

export function Loading({ label = text(common).loading }: { label?: string }) {
  return (
    <p class='state loading' role='status' aria-live='polite'>
      <span class='spinner' aria-hidden='true' />
      {label}
    </p>
  );
}

/** A failure in words; the API's code stays out of the text (on `data-code`, for whoever debugs). */
export function ErrorBox(
  { error, onRetry, title = text(common).couldNotLoad }: { error: Error; onRetry?: () => void; title?: string },
) {
  return (
    <div class='state error' role='alert' data-code={error instanceof ApiError ? error.code : undefined}>
      <strong>{title}</strong> {error.message}
      {onRetry && (
        <button type='button' class='link' onClick={onRetry}>
          {text(common).tryAgain}
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class='state empty'>{children}</p>;
}

/** Loading / error / ready in one place; `children` renders the data. */
export function Loaded<T>(
  { load, children, label }: { load: Load<T>; children: (data: T) => ComponentChildren; label?: string },
) {
  if (load.status === 'error') return <ErrorBox error={load.error} onRetry={load.reload} />;
  if (load.data === undefined) return <Loading label={label} />;
  return (
    <div class={load.status === 'loading' ? 'refreshing' : undefined} aria-busy={load.status === 'loading'}>
      {children(load.data)}
    </div>
  );
}
