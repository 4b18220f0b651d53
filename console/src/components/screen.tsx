import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function ScreenHeader(
  { title, children, lead }: { title: string; lead?: string; children?: ComponentChildren },
) {
  return (
    <div class='screen-header'>
      <div>
        <h1 tabIndex={-1}>{title}</h1>
        {lead && <p class='lead'>{lead}</p>}
      </div>
      {children && <div class='screen-tools'>{children}</div>}
    </div>
  );
}

/** Tabs as links: each tab is a URL, so a tab can be shared and the back button works. */
export function Tabs(
  { tabs, current, label }: { tabs: { id: string; label: string; href: string }[]; current: string; label: string },
) {
  return (
    <nav class='tabs' aria-label={label}>
      {tabs.map((t) => <a key={t.id} href={t.href} aria-current={t.id === current ? 'page' : undefined}>{t.label}</a>)}
    </nav>
  );
}

/**
 * A record opened from a list (its detail beside the list, or below it at phone width, thousands of pixels
 * down): once it has loaded, its heading takes focus and, if it is off screen, is scrolled to the top.
 */
export function useShownOnOpen(loaded: boolean, headingId: string) {
  const shown = useRef(false);
  useEffect(() => {
    if (!loaded || shown.current) return;
    shown.current = true;
    const heading = document.getElementById(headingId);
    if (!heading) return;
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
    const top = heading.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight * 0.8) heading.scrollIntoView({ block: 'start' });
  }, [loaded]);
}
