// Type-checks functions as `supabase functions deploy` bundles them: each copied, with _shared, where no root
// deno.json or node_modules can help, against the first one's own deno.json.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../scripts/lib/stack.mjs';

export const FUNCTIONS = path.join(ROOT, 'supabase', 'functions');
const DENO = path.join(ROOT, 'node_modules', '.bin', 'deno');
// Deno's own cache for the npm packages a function names, kept between runs as a deploy's bundler keeps its.
const DENO_DIR = path.join(ROOT, 'node_modules', '.cache', 'deno-deploy-check');

/**
 * `deno check` of the functions `names` copied to a folder of their own, after `edit` (given the copy's
 * functions folder) has changed what it wants and named the folders it added, checked too; '' when they
 * type-check, else what Deno printed.
 */
export async function checkCopied(names: string[], edit?: (functions: string) => Promise<string[]>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `deploy-${names[0]}-`));
  try {
    const functions = path.join(dir, 'functions');
    for (const name of [...names, '_shared']) await cp(path.join(FUNCTIONS, name), path.join(functions, name), { recursive: true });
    const added = (await edit?.(functions)) ?? [];
    const config = path.join(functions, names[0], 'deno.json');
    const args = ['check', '--quiet', '--no-lock', ...(await stat(config).then(() => ['--config', config], () => [])),
      ...[...names, ...added].map((name) => path.join(functions, name, 'index.ts'))];
    await promisify(execFile)(DENO, args, { cwd: dir, env: { ...process.env, DENO_DIR, NO_COLOR: '1' } });
    return '';
  } catch (error) {
    return String((error as { stderr?: string }).stderr || error);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Deno's report split into its errors, each with the file it names (`functions/<name>/...`). */
export function errorsOf(report: string): { file: string; text: string }[] {
  return report.split(/\n(?=TS\d+ \[ERROR\])/).filter((block) => /^TS\d+ \[ERROR\]/.test(block.trim()))
    .map((block) => ({ file: /functions\/([^:]+):\d+:\d+/.exec(block)?.[1] ?? '', text: block.trim() }));
}
