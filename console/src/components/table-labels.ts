/**
 * At phone width a table reads as a stack of rows, each cell beside its column's name (styles.css, "Tables
 * as rows"). The names come from the table's own head: every cell of the body and foot gets its column's
 * head as `data-label`, kept up to date as tables render. The rows keep their table semantics by ARIA roles,
 * since CSS that stacks cells takes them away in some browsers.
 */
const ROLES: Record<string, string> = {
  TABLE: 'table',
  THEAD: 'rowgroup',
  TBODY: 'rowgroup',
  TFOOT: 'rowgroup',
  TR: 'row',
};

function label(table: HTMLTableElement) {
  if (table.classList.contains('calendar')) return;
  const heads: string[] = [];
  for (const th of table.tHead?.rows[0]?.cells ?? []) {
    for (let i = 0; i < th.colSpan; i++) heads.push((th.textContent ?? '').replace(/[▲▼↕]/g, '').trim());
  }
  const parts: (HTMLElement | null)[] = [table, table.tHead, ...table.tBodies, table.tFoot];
  for (const part of parts) if (part && !part.hasAttribute('role')) part.setAttribute('role', ROLES[part.tagName]);
  for (const row of table.rows) {
    if (!row.hasAttribute('role')) row.setAttribute('role', 'row');
    let column = 0;
    for (const cell of row.cells) {
      if (!cell.hasAttribute('role')) {
        cell.setAttribute(
          'role',
          cell.tagName === 'TD' ? 'cell' : row.parentElement?.tagName === 'THEAD' ? 'columnheader' : 'rowheader',
        );
      }
      const name = heads[column];
      if (row.parentElement?.tagName !== 'THEAD' && name && cell.dataset.label !== name) cell.dataset.label = name;
      column += cell.colSpan;
    }
  }
}

/** Labels every table in `root` now and whenever the page changes. */
export function labelTables(root: HTMLElement) {
  let pending = 0;
  const run = () => {
    pending = 0;
    root.querySelectorAll('table').forEach(label);
  };
  new MutationObserver(() => {
    pending ||= requestAnimationFrame(run);
  }).observe(root, { childList: true, subtree: true, characterData: true });
  run();
}
