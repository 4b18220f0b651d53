import type { ComponentChildren } from 'preact';

export function ScreenHeader({ title, children, lead }: { title: string; lead?: string; children?: ComponentChildren }) {
  return (
    <div class="screen-header">
      <div>
        <h1 tabIndex={-1}>{title}</h1>
        {lead && <p class="lead">{lead}</p>}
      </div>
      {children && <div class="screen-tools">{children}</div>}
    </div>
  );
}

/** Tabs as links: each tab is a URL, so a tab can be shared and the back button works. */
export function Tabs({ tabs, current, label }: { tabs: { id: string; label: string; href: string }[]; current: string; label: string }) {
  return (
    <nav class="tabs" aria-label={label}>
      {tabs.map((t) => (
        <a key={t.id} href={t.href} aria-current={t.id === current ? 'page' : undefined}>{t.label}</a>
      ))}
    </nav>
  );
}
