/**
 * Where the console finds its project: `config.json` beside index.html. The local server (`npm start`)
 * answers it itself with its own URL, the local anon key and `localSignIn: true`; a static host serves the
 * file written at deploy time (see docs/console.md).
 */
export interface ConsoleConfig {
  /** The project's URL (https://<ref>.supabase.co). Empty: the origin the console is served from. */
  supabaseUrl: string;
  /** The project's anon (publishable) key. */
  anonKey: string;
  /** The local server offers `POST /local/sign-in` (demo admin or customer, no password). */
  localSignIn: boolean;
  /** The store's currency, ISO 4217 (`TWD` when not set): every amount is shown in it. */
  currency: string;
  /**
   * How many decimals amounts show (0 to 4). Not set: as the currency is written in practice (TWD in whole
   * dollars, others as ISO 4217 gives them). CSV files always hold the exact amounts.
   */
  currencyDigits?: number;
  /**
   * The project runs Supabase Realtime (a hosted project or a `supabase start` stack: true when not set):
   * stock on screen follows the database's changes. The local server has none and says `false`; the
   * console then refreshes what is on screen itself (components/live.ts).
   */
  realtime: boolean;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  let response: Response;
  try {
    response = await fetch('./config.json', { cache: 'no-store' });
  } catch {
    throw new Error('The console could not load its configuration (config.json): the server did not answer.');
  }
  if (!response.ok) {
    throw new Error(`The console could not load its configuration (config.json answered ${response.status}).`);
  }
  const raw = (await response.json()) as Partial<ConsoleConfig>;
  const supabaseUrl = (raw.supabaseUrl || location.origin).replace(/\/+$/, '');
  if (!raw.anonKey) {
    throw new Error("config.json has no anonKey: set the project's anon key there (see docs/console.md).");
  }
  const currency = typeof raw.currency === 'string' && /^[A-Z]{3}$/.test(raw.currency) ? raw.currency : 'TWD';
  const currencyDigits = Number.isInteger(raw.currencyDigits) && raw.currencyDigits! >= 0 && raw.currencyDigits! <= 4
    ? raw.currencyDigits
    : undefined;
  return {
    supabaseUrl,
    anonKey: raw.anonKey,
    localSignIn: raw.localSignIn === true,
    currency,
    currencyDigits,
    realtime: raw.realtime !== false,
  };
}
