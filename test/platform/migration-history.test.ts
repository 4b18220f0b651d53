/**
 * A local database built by another version of the schema (before the baseline, say) must not meet
 * `npm start` with a raw Supabase CLI error: one line says what to do.
 */
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { MigrationHistoryError, prepareDatabase } from '../../scripts/lib/stack.mjs';
import { scratchDatabase } from '../support/client.ts';

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
