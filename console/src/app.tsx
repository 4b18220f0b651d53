import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api/client.ts';
import { learnServerClock } from './api/server-clock.ts';
import { type Session, session, signOut } from './api/session.ts';
import { ErrorBox, type Load, Loading, useLoad } from './components/load.tsx';
import { useLiveStock } from './components/live.ts';
import { inventoryText } from './i18n/inventory.ts';
import { setTimeZone, storeTimeZone, storeZoneName } from './format/store-time.ts';
import { common } from './i18n/common.ts';
import { type Locale, LOCALE_NAMES, LOCALES, setLocale, text, useLocale } from './i18n/index.ts';
import { href, SCREENS, useRoute } from './router.ts';
import { AttributionScreen } from './screens/attribution.tsx';
import { CampaignTypesScreen } from './screens/campaign-types.tsx';
import { CampaignsScreen } from './screens/campaigns.tsx';
import { HealthScreen } from './screens/health.tsx';
import { InventoryScreen } from './screens/inventory.tsx';
import { OrdersScreen } from './screens/orders.tsx';
import { SignIn } from './screens/sign-in.tsx';

function useSession() {
  const [current, setCurrent] = useState<Session | null>(session.current);
  useEffect(() => session.subscribe(() => setCurrent(session.current)), []);
  return current;
}

/** The console, rendered anew in the chosen language whenever it changes. */
export function App() {
  const current = useLocale();
  return <Console key={current} />;
}

function LanguageSwitch() {
  const t = text(common);
  const current = useLocale();
  return (
    <label class='language'>
      <span class='visually-hidden'>{t.language}</span>
      <select value={current} onChange={(e) => setLocale(e.currentTarget.value as Locale)}>
        {LOCALES.map((l) => <option key={l} value={l} lang={l}>{LOCALE_NAMES[l]}</option>)}
      </select>
    </label>
  );
}

/** Whose session the store's time zone was last loaded for: a change of language keeps it. */
let zoneLoadedFor: string | null = null;

/**
 * The store's time zone, loaded once per signed-in user before any screen shows: every instant and every
 * "today" on screen is the store's. The console is rendered anew when the language changes; the zone is
 * not asked for again then.
 */
function useStoreZone(user: Session | null): Load<string | null> {
  const known = user !== null && zoneLoadedFor === user.email;
  const load = useLoad(
    (signal) =>
      user && !known
        ? api('get', '/store', { signal }).then((r) => {
          setTimeZone(r.data.time_zone);
          learnServerClock(Date.parse(r.data.now));
          zoneLoadedFor = user.email;
          return r.data.time_zone;
        })
        : Promise.resolve(null),
    [user?.email],
  );
  return known ? { status: 'ready', data: storeTimeZone(), reload: load.reload } : load;
}

/**
 * Beside the inventory link: how many active products are low or out of stock, and how many lots expire
 * within 30 days, kept current with the stock (components/live.ts). Nothing when all is well.
 */
function StockAlerts() {
  const t = text(inventoryText);
  const load = useLoad(
    (signal) => api('get', '/products/summary', { signal }).then((r) => r.data),
    [],
    'stock-summary',
  );
  if (!load.data) return null;
  const low = load.data.out_of_stock + load.data.low_stock;
  const expiring = load.data.expiring_lots;
  if (!low && !expiring) return null;
  return (
    <span class='nav-alerts' data-testid='stock-alerts' title={t.navAlerts(low, expiring)}>
      {low > 0 && <span class='nav-count nav-count-bad' aria-hidden='true' data-low={low}>{low}</span>}
      {expiring > 0 && (
        <span class='nav-count nav-count-warning' aria-hidden='true' data-expiring={expiring}>{expiring}</span>
      )}
      <span class='visually-hidden'>{t.navAlertsSpoken(t.navAlerts(low, expiring))}</span>
    </span>
  );
}

function Console() {
  const t = text(common);
  const user = useSession();
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const label = t[`screen.${route.screen}`];
  const zone = useStoreZone(user);
  useLiveStock(user !== null);

  useEffect(() => {
    document.title = `${user ? label : t.signIn} · ${t.brand}`;
  }, [label, user]);
  // Moving to another screen moves focus to its heading, as a page load would.
  const previous = useRef(route.screen);
  useEffect(() => {
    if (previous.current !== route.screen) main.current?.querySelector<HTMLElement>('h1')?.focus();
    previous.current = route.screen;
  }, [route.screen]);

  if (!user) {
    return (
      <>
        <div class='sign-in-language'>
          <LanguageSwitch />
        </div>
        <SignIn notice={session.notice} />
      </>
    );
  }
  const isAdmin = user.role === 'admin';
  if (zone.status !== 'ready') {
    return zone.status === 'error' ? <ErrorBox error={zone.error} onRetry={zone.reload} /> : <Loading />;
  }
  return (
    <>
      <a
        class='skip'
        href='#main'
        onClick={(e) => {
          e.preventDefault();
          main.current?.focus();
        }}
      >
        {t.skipToContent}
      </a>
      <header class='top'>
        <span class='brand'>{t.brand}</span>
        <nav aria-label={t.screens}>
          <ul>
            {SCREENS.map((s) => (
              <li key={s}>
                <a href={href(s)} aria-current={s === route.screen ? 'page' : undefined}>
                  {t[`screen.${s}`]}
                  {s === 'inventory' && <StockAlerts />}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class='who'>
          <span title={isAdmin ? user.email : `${user.email}: ${t.roleCustomerHint}`}>
            {user.email} <span class={`badge badge-${user.role}`}>{isAdmin ? t.roleAdmin : t.roleCustomer}</span>
          </span>
          <span class='store-zone'>{t.timesIn(storeZoneName())}</span>
          <LanguageSwitch />
          <button type='button' class='link' onClick={() => signOut()}>{t.signOut}</button>
        </div>
      </header>
      <main id='main' ref={main} tabIndex={-1} data-screen={route.screen}>
        {route.screen === 'health' && <HealthScreen route={route} isAdmin={isAdmin} />}
        {route.screen === 'orders' && <OrdersScreen route={route} isAdmin={isAdmin} />}
        {route.screen === 'campaigns' && <CampaignsScreen route={route} isAdmin={isAdmin} />}
        {route.screen === 'attribution' && <AttributionScreen route={route} />}
        {route.screen === 'inventory' && <InventoryScreen route={route} isAdmin={isAdmin} />}
        {route.screen === 'campaign-types' && <CampaignTypesScreen route={route} isAdmin={isAdmin} />}
      </main>
    </>
  );
}
