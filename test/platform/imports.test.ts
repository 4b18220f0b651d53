/**
 * Modules import downward only and never in a circle: a shared piece never reaches up into what uses
 * it, so it can be read, tested and moved on its own. The layers:
 *   - supabase/functions: `_shared/` imports nothing of a function; a function imports `_shared/` and its
 *     own folder, never another function's (each deploys as its folder plus `_shared/`).
 *   - console/src: `i18n/`, `api/`, `format/`, `router.ts`, `csv.ts` import no component or screen;
 *     `components/` import no screen; a screen module is a sub-view of at most one other screen (what
 *     two screens share is a component).
 *   - nothing under supabase/functions or console/src imports scripts/, test/ or bench/.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';

const ROOTS = ['supabase/functions', 'console/src', 'scripts', 'bench', 'test'];
const SOURCE = /\.(ts|tsx|mjs|js)$/;
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*'([^']+)'|(?:^|\n)\s*import\s*'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;

function sources(dir: string): string[] {
  const full = path.join(ROOT, dir);
  if (!existsSync(full)) return [];
  return (readdirSync(full, { recursive: true }) as string[])
    .filter((f) => SOURCE.test(f) && !f.split(path.sep).includes('node_modules') && !f.split(path.sep).includes('dist'))
    .map((f) => path.join(dir, f));
}

/** Every module's relative imports, resolved to paths from the repository root. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ROOTS.flatMap(sources)) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)]
      .map((m) => m[1] ?? m[2] ?? m[3])
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => path.normalize(path.join(path.dirname(file), spec)));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

const graph = importGraph();
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));
const within = (dir: string, file: string) => file.startsWith(`${dir}/`);
const fnFolder = (file: string) => file.split('/')[2];

describe('imports run downward and never in a circle', () => {
  it('reads the modules and their imports', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(300);
    expect(edges.filter((e) => !existsSync(path.join(ROOT, e.to)))).toEqual([]);
  });

  it('has no circle of imports', () => {
    const circles: string[][] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') circles.push([...stack.slice(stack.indexOf(next)), next]);
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it('keeps _shared/ free of any function, and each function out of the others', () => {
    const functions = 'supabase/functions';
    const upward = edges.filter(({ from, to }) =>
      within(functions, from) && within(functions, to) && fnFolder(to) !== '_shared' && fnFolder(to) !== fnFolder(from)
    );
    expect(upward).toEqual([]);
  });

  it('keeps the console layered: shared pieces import no screen, a screen is a sub-view of at most one other', () => {
    const console = 'console/src';
    const isView = (f: string) => within(`${console}/screens`, f) || /console\/src\/(app|main)\.tsx$/.test(f);
    const upward = edges.filter(({ from, to }) =>
      within(console, from) && !isView(from) && (isView(to) || (!within(`${console}/components`, from) && within(`${console}/components`, to)))
    );
    expect(upward).toEqual([]);
    const screens = edges.filter(({ from, to }) => within(`${console}/screens`, from) && within(`${console}/screens`, to));
    const importers = new Map<string, string[]>();
    for (const { from, to } of screens) importers.set(to, [...(importers.get(to) ?? []), from]);
    expect([...importers].filter(([, by]) => by.length > 1)).toEqual([]);
  });

  it('keeps what is deployed or shipped free of scripts, tests and benches', () => {
    const shipped = edges.filter(({ from, to }) =>
      (within('supabase/functions', from) || within('console/src', from)) &&
      ['scripts', 'test', 'bench'].some((dir) => within(dir, to))
    );
    expect(shipped).toEqual([]);
  });
});
