/** The dependencies a function needs, read from the environment Supabase gives every function. */
import { createAuthenticator, userStandingFromDatabase } from './auth.ts';
import { createDatabase } from './db.ts';
import type { Dependencies } from './http.ts';

/**
 * `trustedProxyHops` is the default when TRUSTED_PROXY_HOPS is unset: one, Supabase's gateway, for a deployed
 * function; the local server, with no proxy in front, passes none.
 */
export function dependenciesFromEnv({ trustedProxyHops = 1 }: { trustedProxyHops?: number } = {}): Dependencies {
  const env = (name: string) => Deno.env.get(name) || undefined;
  const dbUrl = env('SUPABASE_DB_URL') ?? env('DATABASE_URL');
  if (!dbUrl) throw new Error('SUPABASE_DB_URL is not set');
  const supabaseUrl = env('SUPABASE_URL');
  const origins = env('CORS_ALLOWED_ORIGINS');
  const db = createDatabase(dbUrl, {
    max: env('DB_POOL_SIZE') ? Number(env('DB_POOL_SIZE')) : undefined,
    prepare: env('DB_PREPARE') ? env('DB_PREPARE') !== 'false' : undefined,
    requestTimeout: env('DB_REQUEST_TIMEOUT') ? Number(env('DB_REQUEST_TIMEOUT')) : undefined,
  });
  return {
    db,
    auth: createAuthenticator({
      jwtSecret: env('SUPABASE_JWT_SECRET') ?? env('JWT_SECRET'),
      jwksUrl: env('SUPABASE_JWKS_URL') ?? (supabaseUrl ? `${supabaseUrl}/auth/v1/.well-known/jwks.json` : undefined),
      userStanding: userStandingFromDatabase(db),
    }),
    allowedOrigins: !origins || origins === '*' ? '*' : origins.split(',').map((origin) => origin.trim()),
    trustedProxyHops: Number(env('TRUSTED_PROXY_HOPS') ?? trustedProxyHops),
  };
}
