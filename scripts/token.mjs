// npm run token -- admin|customer|anon|service [--expires-in 1h]
// Prints a token the local stack accepts, for curl's `Authorization: Bearer ...`.
import { parseArgs } from 'node:util';
import { tokenFor } from './lib/keys.mjs';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { 'expires-in': { type: 'string' } },
});
const kind = positionals[0] ?? 'admin';
try {
  console.log(await tokenFor(kind, { expiresIn: values['expires-in'] }));
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
