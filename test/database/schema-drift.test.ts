/**
 * supabase/schemas/ is the schema as it stands; supabase/migrations/ is how a database reaches it. The schema
 * files are applied to a fresh database on the suite's server, and its catalogues compared object by object
 * with a copy of the suite's own database as the migrations made it (`supabase db push`, in global setup).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUES, readSchema, schemaDifferences } from '../../scripts/lib/schema-catalogue.mjs';
import { applySchemaFiles, SCHEMAS_DIR, schemaFiles } from '../../scripts/lib/schema-files.mjs';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { scratchDatabase } from '../support/client.ts';

const databases = { fromSchemas: scratchDatabase('drift_schemas'), fromMigrations: scratchDatabase('drift_migrations') };

async function bootstrapped(database: ReturnType<typeof scratchDatabase>) {
  await database.create();
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  await sql.unsafe(await readFile(path.join(ROOT, 'supabase/bootstrap/platform.sql'), 'utf8'));
  return sql;
}

let fromSchemas: postgres.Sql;
let fromMigrations: postgres.Sql;

beforeAll(async () => {
  fromSchemas = await bootstrapped(databases.fromSchemas);
  await Promise.all([applySchemaFiles(databases.fromSchemas.url), databases.fromMigrations.createMigrated()]);
  fromMigrations = postgres(databases.fromMigrations.url, { max: 1, onnotice: () => {} });
}, 120_000);

afterAll(async () => {
  await Promise.all([fromSchemas?.end(), fromMigrations?.end()]);
});

describe('the schema files and the migrations', () => {
  it('build the same schema, catalogue by catalogue', async () => {
    const [expected, actual] = await Promise.all([readSchema(fromSchemas), readSchema(fromMigrations)]);
    expect(schemaDifferences(expected, actual)).toEqual([]);
    // The comparison saw the project's objects, not two empty catalogues.
    expect(expected.functions.has('public.stock_in(uuid,bigint,text,text,timestamp with time zone,text,text,date,numeric)')).toBe(true);
    expect(expected.policies.size).toBeGreaterThan(20);
  });

  it('a change to one object is reported with its name', async () => {
    await fromSchemas.begin(async (tx) => {
      await tx`alter function private.health_rating(numeric) set work_mem = '1MB'`;
      await tx`create index drift_probe_idx on public.orders (status)`;
      await tx`alter policy "admins add orders" on public.orders to authenticated, service_role`;
      const [expected, actual] = await Promise.all([readSchema(tx as unknown as postgres.Sql), readSchema(fromMigrations)]);
      const reported = schemaDifferences(expected, actual).map((line) => line.split('\n')[0]);
      expect(reported).toEqual([
        'indexes: public.drift_probe_idx is only in the schema files',
        'functions: private.health_rating(numeric) differs (- schema files, + migrations)',
        'policies: admins add orders on public.orders differs (- schema files, + migrations)',
      ]);
      throw new RollBack();
    }).catch((error) => {
      if (!(error instanceof RollBack)) throw error;
    });
  });

  it('compare every catalogue the drift rule names', () => {
    expect(Object.keys(CATALOGUES)).toEqual(expect.arrayContaining([
      'relations', 'columns', 'constraints', 'indexes', 'functions', 'views', 'triggers', 'policies',
      'default_privileges', 'publications',
    ]));
  });
});

describe('supabase/schemas/', () => {
  it('defines each function, view, table and policy in one place only', async () => {
    const definitions = new Map<string, string[]>();
    for (const file of await schemaFiles()) {
      const text = await readFile(path.join(SCHEMAS_DIR, file), 'utf8');
      const pattern =
        /^create (?:or replace )?(function|view|table|policy|trigger|index|type)\s+("[^"]+"(?:\s+on\s+[\w.]+)?|[\w.]+(?:\s+on\s+[\w.]+)?)/gim;
      for (const [, kind, name] of text.matchAll(pattern)) {
        const key = `${kind.toLowerCase()} ${name.toLowerCase()}`;
        definitions.set(key, [...(definitions.get(key) ?? []), file]);
      }
    }
    const repeated = [...definitions].filter(([, files]) => files.length > 1).map(([key, files]) => `${key}: ${files.join(', ')}`);
    expect(repeated).toEqual([]);
    expect(definitions.size).toBeGreaterThan(100);
  });
});

class RollBack extends Error {}
