// `npm run bench -- --smoke` end to end, so the harness keeps working between full runs.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { scenarios } from '../../bench/scenarios.mjs';

function runSmoke(script = 'bench/run.mjs'): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, '--smoke'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the benchmark harness', () => {
  it('measures every scenario beside its ceilings and writes the report', async () => {
    const { code, output } = await runSmoke();
    expect(code, output).toBe(0);
    const report = JSON.parse(await readFile(path.join(ROOT, 'bench/results/smoke.json'), 'utf8'));
    expect(report.mode).toBe('smoke');
    expect(report.http_ceiling.requests_per_sec).toBeGreaterThan(0);
    expect(report.http_ceiling_behind_front.requests_per_sec).toBeGreaterThan(0);
    expect(report.results.map((r: any) => r.scenario)).toEqual(scenarios.map((s) => s.name));
    for (const result of report.results) {
      expect(result.endpoint.requests_per_sec, result.scenario).toBeGreaterThan(0);
      expect(result.endpoint.non_2xx, result.scenario).toBe(0);
      expect(result.database_ceiling.requests_per_sec, result.scenario).toBeGreaterThan(0);
      expect(result.database_ceiling.errors, result.scenario).toBe(0);
    }
    const md = await readFile(path.join(ROOT, 'bench/results/smoke.md'), 'utf8');
    for (const scenario of scenarios) expect(md).toContain(`| ${scenario.name} |`);
  }, 300_000);

  it('measures the order write path beside the trigger-less copy and writes its report', async () => {
    const { code, output } = await runSmoke('bench/order-writes.mjs');
    expect(code, output).toBe(0);
    const report = JSON.parse(await readFile(path.join(ROOT, 'bench/results/order-writes-smoke.json'), 'utf8'));
    expect(report.mode).toBe('smoke');
    expect(report.single.new_customer.p50).toBeGreaterThan(0);
    expect(report.single.heavy_customer.p50).toBeGreaterThan(0);
    expect(report.concurrent.map((c: any) => `${c.writers} ${c.table}`)).toEqual([
      '8 orders', '8 orders_without_triggers', '32 orders', '32 orders_without_triggers',
    ]);
    for (const run of report.concurrent) {
      expect(run.orders_per_second, `${run.writers} ${run.table}`).toBeGreaterThan(0);
      expect(run.errors, `${run.writers} ${run.table}`).toEqual({});
    }
  }, 120_000);
});
