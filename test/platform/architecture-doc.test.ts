// docs/architecture.md is where a newcomer starts: its table of schema files and its map from an order to a
// report must be true to the code, or they send the reader to a file or a function that is not there.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCHEMAS_DIR, schemaFiles } from '../../scripts/lib/schema-files.mjs';
import { ROOT } from '../../scripts/lib/stack.mjs';

let doc: string;
let files: string[];
/** Every name the schema creates: functions, tables, views, types and triggers, schema-qualified or not. */
const created = new Set<string>();

beforeAll(async () => {
  doc = await readFile(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  files = await schemaFiles();
  for (const file of files) {
    const text = await readFile(path.join(SCHEMAS_DIR, file), 'utf8');
    for (const [, name] of text.matchAll(/^create (?:or replace )?(?:function|table|view|type|trigger) ([\w.]+)/gim)) {
      created.add(name);
      created.add(name.replace(/^\w+\./, ''));
    }
  }
});

/** The rows of the markdown table that follows `heading`, as lists of cells. */
function tableAfter(heading: string): string[][] {
  const start = doc.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'));
  return lines.slice(first + 2, end).map((line) => line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
}

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map(([, name]) => name);

describe('docs/architecture.md', () => {
  it('lists every schema file, in the order they apply, and no file that is not there', () => {
    const listed = tableAfter('The schema files, in the order they apply').map(([file]) => file.replace(/`/g, ''));
    expect(listed).toEqual(files);
  });

  it("names only files and functions that exist in the map from an order to a report, and every step's files", () => {
    const missing: string[] = [];
    for (const [step, where, names] of tableAfter('| Step | Where | Function |')) {
      for (const file of backticked(where).filter((name) => name.endsWith('.sql'))) {
        if (!files.some((f) => f === file || f.endsWith(`/${file}`))) missing.push(`${step.slice(0, 3)} file ${file}`);
      }
      // Objects by name: routes (`POST /orders`) and TypeScript files (`handlers.ts`) are the functions' side.
      const objects = backticked(`${where} ${names}`).filter((name) => !/\.(sql|ts)$|[ /]/.test(name));
      for (const name of objects) if (!created.has(name.replace(/\(.*\)$/, ''))) missing.push(`${step.slice(0, 3)} ${name}`);
    }
    expect(missing).toEqual([]);
  });

  it('names only schema objects that exist, wherever it names one schema-qualified', () => {
    const named = [...doc.matchAll(/`((?:public|private|health)\.\w+)(?:\([^`]*\))?`/g)].map(([, name]) => name);
    expect(named.length).toBeGreaterThan(40);
    expect([...new Set(named.filter((name) => !created.has(name)))]).toEqual([]);
  });
});
