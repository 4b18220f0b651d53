/**
 * Who is signed in. Hosted: Supabase Auth (`signInWithPassword`), whose client keeps and refreshes the
 * session. Locally, where there is no /auth/v1: `POST /local/sign-in` on the local server, which mints a
 * token for the demo admin or customer (scripts/serve.ts; never part of a deployed function).
 */
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { configureClient } from './client.ts';
import type { ConsoleConfig } from './config.ts';
import { learnServerClock, restoreServerClockOffset, serverClockOffset, serverNow } from './server-clock.ts';

export type Role = 'admin' | 'customer';
export interface Session {
  email: string;
  role: Role;
  /** Seconds since the epoch, by the server's clock (api/server-clock.ts). */
  expiresAt: number;
}

const STORAGE_KEY = 'store-console.local-session';
let config: ConsoleConfig;
let auth: SupabaseClient | undefined;
/** The local sign-in's token, its session and the server's clock offset when it was issued. */
let localToken: { token: string; session: Session; clockOffset?: number } | null = null;
let current: Session | null = null;
let notice = '';
const listeners = new Set<() => void>();

function publish(session: Session | null, message = '') {
  current = session;
  notice = message;
  for (const listener of listeners) listener();
}

export const session = {
  get current() {
    return current;
  },
  /** Why the user was signed out, if not by choice. */
  get notice() {
    return notice;
  },
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** The role a hosted token carries: a `user_role` claim (Supabase's custom access token hook) or app_metadata. */
function roleFromToken(token: string): Role {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    const role = payload.user_role ?? payload.app_metadata?.role ?? payload.app_metadata?.user_role;
    return role === 'admin' ? 'admin' : 'customer';
  } catch {
    return 'customer';
  }
}

async function accessToken(): Promise<string | null> {
  if (config.localSignIn) {
    if (localToken && localToken.session.expiresAt * 1000 <= serverNow()) expire();
    return localToken?.token ?? null;
  }
  const { data } = await auth!.auth.getSession();
  return data.session?.access_token ?? null;
}

function expire() {
  void signOut('Your session has ended: please sign in again.');
}

export async function initSession(cfg: ConsoleConfig) {
  config = cfg;
  // Supabase Auth first: the functions client asks for a token as soon as it exists.
  if (!cfg.localSignIn) auth = createClient(cfg.supabaseUrl, cfg.anonKey);
  configureClient(cfg.supabaseUrl, cfg.anonKey, accessToken, expire);
  if (cfg.localSignIn) {
    try {
      const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
      restoreServerClockOffset(stored?.clockOffset);
      if (stored && stored.session.expiresAt * 1000 > serverNow() + 10_000) localToken = stored;
    } catch {
      sessionStorage.removeItem(STORAGE_KEY);
    }
    publish(localToken?.session ?? null);
    return;
  }
  const { data } = await auth!.auth.getSession();
  const s = data.session;
  publish(
    s ? { email: s.user.email ?? s.user.id, role: roleFromToken(s.access_token), expiresAt: s.expires_at ?? 0 } : null,
  );
  auth!.auth.onAuthStateChange((_event, next) => {
    if (!next) return publish(null, current ? 'You were signed out.' : '');
    publish({
      email: next.user.email ?? next.user.id,
      role: roleFromToken(next.access_token),
      expiresAt: next.expires_at ?? 0,
    });
  });
}

export const usesLocalSignIn = () => config.localSignIn;

/** Local stack only: sign in as the demo admin or customer. */
export async function signInLocally(as: Role) {
  let response: Response;
  try {
    response = await fetch(`${config.supabaseUrl}/local/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ as }),
    });
  } catch {
    throw new Error('The local server could not be reached: is `npm start` running?');
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error ?? `The local sign-in answered ${response.status}.`);
  // The token was issued `expires_in` seconds before `expires_at`, by the server's clock: that is the
  // server's now, whatever this device's clock says.
  learnServerClock((body.expires_at - body.expires_in) * 1000);
  const s: Session = { email: body.user.email, role: body.user.role, expiresAt: body.expires_at };
  localToken = { token: body.access_token, session: s, clockOffset: serverClockOffset() };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(localToken));
  publish(s);
}

/** Hosted: Supabase Auth with e-mail and password. */
export async function signInWithPassword(email: string, password: string) {
  const { error } = await auth!.auth.signInWithPassword({ email, password });
  if (!error) return;
  if (error.message === 'Invalid login credentials') throw new Error('Wrong e-mail or password.');
  if (/fetch|network/i.test(error.message)) {
    throw new Error(
      `Supabase Auth at ${config.supabaseUrl} could not be reached: check config.json and your connection.`,
    );
  }
  throw new Error(error.message);
}

export async function signOut(message = '') {
  if (config.localSignIn) {
    localToken = null;
    sessionStorage.removeItem(STORAGE_KEY);
  } else if (current) {
    await auth!.auth.signOut().catch(() => {});
  }
  publish(null, message);
}
