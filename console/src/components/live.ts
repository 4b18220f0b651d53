/**
 * Stock on screen keeps itself current. Where the project runs Supabase Realtime (config.json `realtime`),
 * the console subscribes to changes of `products` (every stock change writes its row: a lot, a ledger row
 * and the product's stock in one transaction) and refreshes what shows stock; RLS decides which changes a
 * user hears of. Where it has none (the local stack), or the subscription fails, it refreshes what shows
 * stock every REFRESH_SECONDS while the tab is visible, and once on coming back to a tab left longer.
 */
import { useEffect } from 'preact/hooks';
import { subscribeToChanges } from '../api/client.ts';
import { changed, type Shown } from './load.tsx';

export const REFRESH_SECONDS = 15;

/** What a stock change makes stale: the product list, an open product, the lots expiring and the navigation's counts. */
export const STOCK: Shown[] = ['products', 'product', 'expiring', 'stock-summary'];

let realtime = false;

export function setRealtime(available: boolean) {
  realtime = available;
}

/** Keeps the stock on screen current while the signed-in console is open. */
export function useLiveStock(signedIn: boolean) {
  useEffect(() => {
    if (!signedIn) return;
    let last = Date.now();
    let missed = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const refresh = () => {
      last = Date.now();
      missed = false;
      changed(...STOCK);
    };
    const visible = () => document.visibilityState === 'visible';

    const poll = () => {
      clearInterval(timer);
      timer = visible() ? setInterval(refresh, REFRESH_SECONDS * 1000) : undefined;
    };
    let polling = !realtime;
    const onVisibility = () => {
      if (visible() && (missed || (polling && Date.now() - last >= REFRESH_SECONDS * 1000))) refresh();
      if (polling) poll();
    };
    let unsubscribe = () => {};
    if (realtime) {
      // A burst of changes (a delivery of 50 lines) is one refresh.
      let pending: ReturnType<typeof setTimeout> | undefined;
      unsubscribe = subscribeToChanges('products', () => {
        if (!visible()) return void (missed = true);
        clearTimeout(pending);
        pending = setTimeout(refresh, 300);
      }, () => {
        polling = true;
        poll();
      });
    } else {
      poll();
    }
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      unsubscribe();
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [signedIn]);
}
