/**
 * The screen and its state live in the URL's hash (`#/campaigns?status=active&page=2`), so every view can
 * be bookmarked and shared, and the console works from any static host without server rewrites.
 */
import { useEffect, useState } from 'preact/hooks';

/** The screens, in the navigation's order (their names are in i18n/common.ts). */
export const SCREENS = ['health', 'orders', 'campaigns', 'attribution', 'inventory', 'campaign-types'] as const;
export type Screen = (typeof SCREENS)[number];

export interface Route {
  screen: Screen;
  params: URLSearchParams;
}

export function parseHash(hash = location.hash): Route {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?');
  const screen = SCREENS.find((s) => s === path) ?? 'health';
  return { screen, params: new URLSearchParams(query) };
}

export function href(screen: Screen, params: Record<string, string | number | undefined | null> = {}) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  return `#/${screen}${search.size ? `?${search}` : ''}`;
}

/** Goes to a screen state; `replace` for changes that should not add a history entry (typing in a filter). */
export function navigate(
  screen: Screen,
  params: Record<string, string | number | undefined | null> = {},
  replace = false,
) {
  const target = href(screen, params);
  if (target === location.hash) return;
  if (replace) {
    history.replaceState(null, '', target);
    dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = target;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(parseHash);
  useEffect(() => {
    const update = () => setRoute(parseHash());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The current screen's parameters as a plain object, with a setter that keeps the others. */
export function useParams(route: Route) {
  const values = Object.fromEntries(route.params) as Record<string, string>;
  const set = (changes: Record<string, string | number | undefined | null>, replace = false) =>
    navigate(route.screen, { ...values, ...changes }, replace);
  return [values, set] as const;
}
