import { useEffect, useRef, useState } from 'preact/hooks';
import { session, signOut, type Session } from './api/session.ts';
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

export function App() {
  const user = useSession();
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const label = SCREENS.find((s) => s.id === route.screen)!.label;

  useEffect(() => {
    document.title = user ? `${label} · Store console` : 'Sign in · Store console';
  }, [label, user]);
  // Moving to another screen moves focus to its heading, as a page load would.
  const previous = useRef(route.screen);
  useEffect(() => {
    if (previous.current !== route.screen) main.current?.querySelector<HTMLElement>('h1')?.focus();
    previous.current = route.screen;
  }, [route.screen]);

  if (!user) return <SignIn notice={session.notice} />;
  const isAdmin = user.role === 'admin';
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); main.current?.focus(); }}>Skip to content</a>
      <header class="top">
        <span class="brand">Store console</span>
        <nav aria-label="Screens">
          <ul>
            {SCREENS.map((s) => (
              <li key={s.id}>
                <a href={href(s.id)} aria-current={s.id === route.screen ? 'page' : undefined}>{s.label}</a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span title={user.email}>
            {user.email} <span class={`badge badge-${user.role}`}>{isAdmin ? 'Admin' : 'Customer (read-only)'}</span>
          </span>
          <button type="button" class="link" onClick={() => signOut()}>Sign out</button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1} data-screen={route.screen}>
        {route.screen === 'health' && <HealthScreen route={route} isAdmin={isAdmin} />}
        {route.screen === 'orders' && <OrdersScreen route={route} />}
        {route.screen === 'campaigns' && <CampaignsScreen route={route} isAdmin={isAdmin} />}
        {route.screen === 'attribution' && <AttributionScreen route={route} />}
        {route.screen === 'inventory' && <InventoryScreen route={route} isAdmin={isAdmin} />}
        {route.screen === 'campaign-types' && <CampaignTypesScreen route={route} isAdmin={isAdmin} />}
      </main>
    </>
  );
}
