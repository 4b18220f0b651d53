// supabase/schemas/ is where the schema reads as it stands: one current definition of every object, in
// files named for the area they hold, applied in path order (each file after what it depends on).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { ROOT } from './stack.mjs';

export const SCHEMAS_DIR = path.join(ROOT, 'supabase', 'schemas');

/** Every schema file, relative to supabase/schemas/, in the order they apply. */
export async function schemaFiles() {
  const entries = await readdir(SCHEMAS_DIR, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.sql'))
    .map((entry) => path.relative(SCHEMAS_DIR, path.join(entry.parentPath ?? entry.path, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** Applies the schema files to the database at `url` in one transaction. */
export async function applySchemaFiles(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      for (const file of await schemaFiles()) {
        try {
          await tx.unsafe(await readFile(path.join(SCHEMAS_DIR, file), 'utf8'));
        } catch (error) {
          error.message = `supabase/schemas/${file}: ${error.message}`;
          throw error;
        }
      }
    });
  } finally {
    await sql.end();
  }
}
