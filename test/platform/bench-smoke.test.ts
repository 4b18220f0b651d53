// `npm run bench -- --smoke` end to end, so the harness keeps working between full runs.
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { scenarios } from '../../bench/scenarios.mjs';
import { runSmoke } from '../support/bench.ts';
import { scratchDatabase } from '../support/client.ts';

const database = scratchDatabase('bench_smoke');

describe('the benchmark harness', () => {
  it('measures every scenario beside its ceilings and writes the report', async () => {
    const ceilingFolders = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('http-ceiling-'));
    const foldersBefore = await ceilingFolders();
    const { code, output } = await runSmoke('bench/run.mjs', database);
    expect(code, output).toBe(0);
    // The HTTP ceiling's socket folder goes with its server.
    expect((await ceilingFolders()).filter((name) => !foldersBefore.includes(name))).toEqual([]);
    const report = JSON.parse(await readFile(path.join(ROOT, 'bench/results/smoke.json'), 'utf8'));
    expect(report.mode).toBe('smoke');
    expect(report.http_ceiling.requests_per_sec).toBeGreaterThan(0);
    expect(report.http_ceiling_behind_front.requests_per_sec).toBeGreaterThan(0);
    // Every scenario but those running another's code with another parameter (`sameAs`), which that one covers.
    const distinct = scenarios.filter((s) => !s.sameAs);
    expect(distinct.length).toBeLessThan(scenarios.length);
    expect(report.results.map((r: any) => r.scenario)).toEqual(distinct.map((s) => s.name));
    for (const result of report.results) {
      expect(result.endpoint.requests_per_sec, result.scenario).toBeGreaterThan(0);
      expect(result.endpoint.non_2xx, result.scenario).toBe(0);
      expect(result.database_ceiling.requests_per_sec, result.scenario).toBeGreaterThan(0);
      expect(result.database_ceiling.errors, result.scenario).toBe(0);
    }
    const md = await readFile(path.join(ROOT, 'bench/results/smoke.md'), 'utf8');
    for (const scenario of distinct) expect(md).toContain(`| ${scenario.name} |`);
  }, 300_000);
});
