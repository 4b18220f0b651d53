// `supabase functions deploy <name>` bundles a function folder with only what that folder carries: its own
// deno.json (Supabase's recommended form since CLI 1.215), not the repository root's deno.json or
// node_modules. Every folder the deploy command would pick up must resolve and type-check that way, and be
// deployed with the same settings as the others, or the next function added breaks only once deployed.
// The same check proves answers typed: a copy of a function whose handler answers a shape its route does not
// declare is checked beside them, and must fail (one `deno check` for both, as loading the libraries' types
// is most of its time).
import { cp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { checkCopied, errorsOf, FUNCTIONS } from '../support/deno-check.ts';

/** The function folders as the deploy command finds them: not `_`-prefixed, with an index.ts. */
async function deployedFunctions(): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(FUNCTIONS, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('_')) continue;
    if (await stat(path.join(FUNCTIONS, entry.name, 'index.ts')).then(() => true, () => false)) names.push(entry.name);
  }
  return names.sort();
}

const names = await deployedFunctions();

/** The functions grouped by the text of their own deno.json (none: a group of its own). */
async function byConfig(): Promise<string[][]> {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const config = await readFile(path.join(FUNCTIONS, name, 'deno.json'), 'utf8').catch(() => `none:${name}`);
    groups.set(config, [...(groups.get(config) ?? []), name]);
  }
  return [...groups.values()];
}

/** A copy of the store function whose handler answers `today` as a number where its route declares a day. */
const WRONG_ANSWER = 'store-answering-wrong';

async function answerWrong(functions: string): Promise<string[]> {
  await cp(path.join(functions, 'store'), path.join(functions, WRONG_ANSWER), { recursive: true });
  const handlers = path.join(functions, WRONG_ANSWER, 'handlers.ts');
  const source = await readFile(handlers, 'utf8');
  expect(source).toContain('return ok(c, settings);');
  await writeFile(handlers, source.replace('return ok(c, settings);', 'return ok(c, { ...settings, today: 1 });'));
  return [WRONG_ANSWER];
}

/** Each group of functions sharing a deno.json checked as deployed, the wrong answer's copy with the store's. */
let checks: Promise<{ group: string[]; errors: ReturnType<typeof errorsOf> }[]> | undefined;
const checked = () =>
  checks ??= byConfig().then((groups) =>
    Promise.all(groups.map(async (group) => ({
      group,
      errors: errorsOf(await checkCopied(group, group.includes('store') ? answerWrong : undefined)),
    })))
  );

describe('every function deploys with only its own settings', () => {
  it('finds the functions', () => {
    expect(names).toContain('products');
    expect(names.length).toBeGreaterThanOrEqual(8);
  });

  it('each resolves and type-checks with only its own folder’s deno.json', async () => {
    const results = await checked();
    const own = results.flatMap(({ errors }) => errors.filter(({ file }) => !file.startsWith(`${WRONG_ANSWER}/`)));
    expect(own.map(({ text }) => text.split('\n').slice(0, 3).join(' '))).toEqual([]);
    expect(results.flatMap(({ group }) => group).sort()).toEqual(names);
  }, 120_000);

  it("a handler whose answer breaks its route's declared shape does not type-check", async () => {
    const wrong = (await checked()).flatMap(({ errors }) => errors.filter(({ file }) => file.startsWith(`${WRONG_ANSWER}/`)));
    // Found where the handler meets its route (`on(route, handler)` in index.ts), naming the field.
    expect(wrong.length, 'the wrong answer type-checked').toBeGreaterThan(0);
    expect(wrong.map(({ text }) => text).join('\n')).toMatch(/today/);
  }, 120_000);

  it('each pins the same versions as the root deno.json the local server runs with', async () => {
    const root = JSON.parse(await readFile(path.join(ROOT, 'deno.json'), 'utf8')).imports as Record<string, string>;
    for (const name of names) {
      const own = JSON.parse(await readFile(path.join(FUNCTIONS, name, 'deno.json'), 'utf8')).imports as Record<string, string>;
      for (const [specifier, target] of Object.entries(own)) expect(target, `${name}: ${specifier}`).toBe(root[specifier]);
    }
  });

  it('each has the same deploy settings in config.toml: verify_jwt off, no shared import map', async () => {
    const config = await readFile(path.join(ROOT, 'supabase', 'config.toml'), 'utf8');
    for (const name of names) {
      const section = new RegExp(`\\[functions\\.${name}\\]\\n([^\\[]*)`).exec(config)?.[1] ?? '';
      expect(section, name).toMatch(/^verify_jwt = false$/m);
      expect(section, name).not.toMatch(/import_map/);
    }
  });
});

describe('the deploy workflow', () => {
  it("runs the README's deploy commands with the secrets the README names", async () => {
    const workflow = await readFile(path.join(ROOT, '.github', 'workflows', 'deploy.yml'), 'utf8');
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    for (const command of ['npx supabase db push --remote --yes', 'npx supabase functions deploy', 'npm ci']) {
      expect(workflow).toContain(command);
    }
    expect(readme).toContain('npx supabase db push --remote --yes');
    for (const secret of ['SUPABASE_ACCESS_TOKEN', 'SUPABASE_DB_PASSWORD', 'SUPABASE_PROJECT_ID']) {
      expect(workflow).toContain(`\${{ secrets.${secret} }}`);
      expect(readme).toContain(`\`${secret}\``);
    }
    expect(workflow).toMatch(/branches: \[main\]/);
  });
});
