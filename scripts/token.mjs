// npm run token -- admin|customer|anon|service [--expires-in 1h]
// Prints a token the local stack accepts, for curl's `Authorization: Bearer ...`.
import { parseArgs } from 'node:util';
import { tokenFor } from './lib/keys.mjs';

const USAGE = 'usage: npm run token -- admin|customer|anon|service [--expires-in 1h]  (an expired one: --expires-in=-1h)';

let parsed;
try {
  parsed = parseArgs({ allowPositionals: true, options: { 'expires-in': { type: 'string' } } });
} catch (error) {
  // A value that starts with a dash reads as an option unless written --expires-in=-1h.
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
const { positionals, values } = parsed;
const kind = positionals[0] ?? 'admin';
try {
  console.log(await tokenFor(kind, { expiresIn: values['expires-in'] }));
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
