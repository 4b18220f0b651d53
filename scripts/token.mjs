// npm run token -- admin|customer|anon|service [--expires-in 1h | --expired]
// Prints a token the local stack accepts, for curl's `Authorization: Bearer ...`; an expired one to test refusals.
import { parseArgs } from 'node:util';
import { tokenFor } from './lib/keys.mjs';

const USAGE = 'usage: npm run token -- admin|customer|anon|service [--expires-in 1h | --expires-in -1h | --expired]';

// parseArgs reads a value that starts with a dash as an option; after --expires-in, a negative expiry is a value.
const args = [];
for (const arg of process.argv.slice(2)) {
  if (args.at(-1) === '--expires-in' && /^-\d/.test(arg)) args[args.length - 1] = `--expires-in=${arg}`;
  else args.push(arg);
}

let parsed;
try {
  parsed = parseArgs({
    args,
    allowPositionals: true,
    options: { 'expires-in': { type: 'string' }, expired: { type: 'boolean' } },
  });
} catch (error) {
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
const { positionals, values } = parsed;
if (values.expired && values['expires-in']) {
  console.error(`--expired and --expires-in are exclusive\n${USAGE}`);
  process.exit(2);
}
const kind = positionals[0] ?? 'admin';
try {
  console.log(await tokenFor(kind, { expiresIn: values.expired ? '-1h' : values['expires-in'] }));
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
