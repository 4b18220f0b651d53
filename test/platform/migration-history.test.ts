/**
 * A local database built by another version of the schema (before the baseline, say) must not meet
 * `npm start` with a raw Supabase CLI error: one line says what to do. A database already up to date is
 * not handed to the CLI again, and one a migration or a seed file has moved past is.
 */
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { MigrationHistoryError, prepareDatabase, upToDate } from '../../scripts/lib/stack.mjs';
import { rolledBack, scratchDatabase } from '../support/client.ts';

const scratch = scratchDatabase('old_history');
const url = scratch.url;

describe('a database built by migrations this checkout no longer has', () => {
  it('is refused with one line naming npm run db:reset', async () => {
    await scratch.create();
    const old = postgres(url, { max: 1, onnotice: () => {} });
    await old.unsafe(`
      create schema supabase_migrations;
      create table supabase_migrations.schema_migrations (version text primary key, statements text[], name text);
      insert into supabase_migrations.schema_migrations (version, name) values ('20261123000100', 'user_roles');`);
    await old.end();

    const error = await prepareDatabase(url).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(MigrationHistoryError);
    const message = (error as Error).message;
    expect(message).toContain('20261123000100');
    expect(message).toContain('npm run db:reset');
    expect(message).not.toContain('\n');
  });
});

describe('a database the migrations and seed files were applied to', () => {
  const current = scratchDatabase('current_history');

  it('is not handed to the CLI again', async () => {
    await current.createMigrated();
    expect(await prepareDatabase(current.url)).toEqual({ pushed: false });
    expect(await prepareDatabase(current.url, { seed: false })).toEqual({ pushed: false });
  });

  it('is up to date no longer when it lacks a migration or a seed file has changed since', async () => {
    const sql = postgres(current.url, { max: 1, onnotice: () => {} });
    try {
      const seen: Record<string, boolean> = {};
      await rolledBack(sql, async (tx) => {
        seen.before = await upToDate(tx, { seed: true });
        await tx`update supabase_migrations.seed_files set hash = 'changed' where path = 'supabase/seed.sql'`;
        seen.seedChanged = await upToDate(tx, { seed: true });
        seen.seedChangedWithoutSeed = await upToDate(tx, { seed: false });
        await tx`delete from supabase_migrations.seed_files`;
        seen.neverSeeded = await upToDate(tx, { seed: true });
        await tx`delete from supabase_migrations.schema_migrations
                 where version = (select max(version) from supabase_migrations.schema_migrations)`;
        seen.migrationMissing = await upToDate(tx, { seed: false });
      });
      expect(seen).toEqual({ before: true, seedChanged: false, seedChangedWithoutSeed: true, neverSeeded: false, migrationMissing: false });
    } finally {
      await sql.end();
    }
  });
});
