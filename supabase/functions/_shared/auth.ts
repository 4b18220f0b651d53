/**
 * Who is calling. Tokens are verified here with `jose`: HS256 against the project's JWT secret, or an
 * asymmetric signature against the project's JWKS. Anything else (no signature, `alg: none`, a wrong
 * signature, an expired or malformed token, an unknown role) is rejected, never downgraded to anonymous.
 */
import { createRemoteJWKSet, decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';
import type { Caller } from './caller.ts';
import { type Database, translateDatabaseError } from './db.ts';
import { ApiError, type Area } from './errors.ts';
import { uuid } from './validation.ts';

/** Which callers a route admits. `public` also admits a request with no Authorization header at all. */
export type Access = 'user' | 'public';

/** Whether a user may still act: `gone` when deleted, `banned` while `banned_until` lies ahead. */
export type UserStanding = 'active' | 'gone' | 'banned';

export interface AuthConfig {
  jwtSecret?: string;
  jwksUrl?: string;
  /**
   * Looks a token's user up in `auth.users`. A signed token outlives its user (it stays valid until `exp`), so
   * without this a deleted or banned user would keep acting until then. Left out only where no database is
   * reached (the OpenAPI generator).
   */
  userStanding?: (userId: string) => Promise<UserStanding>;
}

/** The standing of a token's user, as Supabase Auth's table records it (private.user_standing). */
export function userStandingFromDatabase(db: Database): (userId: string) => Promise<UserStanding> {
  return async (userId) => {
    const [{ standing }] = await db.bounded(db.sql<{ standing: UserStanding }[]>`
      select private.user_standing(${userId}::uuid) as standing`);
    return standing;
  };
}

export interface Authenticator {
  authenticate(req: Request, access: Access, area: Area): Promise<Caller>;
}

const ANONYMOUS: Caller = { kind: 'anonymous', role: 'anon', userId: null, claims: { role: 'anon' } };

/** How far ahead of this server's clock a token's `iat` may be: the issuer's clock may run a little fast. */
const CLOCK_SKEW_SECONDS = 60;

/**
 * Verified tokens are remembered, so a client's next requests skip the signature check (a tenth of a
 * request's CPU). Bounded in entries, and in time: a token is trusted again without its signature for at
 * most this long, which bounds how long a key removed from the project's JWKS keeps working.
 */
const CACHE_ENTRIES = 10_000;
const CACHE_SECONDS = 300;

/**
 * How long a user's standing is remembered: a user deleted or banned is refused at most this long after, and
 * an active user costs one lookup per this long, not one per request.
 */
export const USER_STANDING_SECONDS = 30;

/** Values remembered for a while, at most CACHE_ENTRIES of them; the oldest (a Map's first key) goes first. */
function expiring<V>() {
  const entries = new Map<string, { value: V; until: number }>();
  return {
    get(key: string): V | undefined {
      const entry = entries.get(key);
      if (entry && entry.until > Date.now() / 1000) return entry.value;
      entries.delete(key);
    },
    set(key: string, value: V, seconds: number): V {
      if (entries.size >= CACHE_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, until: Date.now() / 1000 + seconds });
      return value;
    },
  };
}

export function createAuthenticator(config: AuthConfig): Authenticator {
  if (!config.jwtSecret && !config.jwksUrl) throw new Error('SUPABASE_JWT_SECRET or SUPABASE_JWKS_URL is required');
  // Imported once: jose would otherwise import the raw secret into WebCrypto on every request.
  const hmac = { name: 'HMAC', hash: 'SHA-256' };
  const secret = config.jwtSecret
    ? crypto.subtle.importKey('raw', new TextEncoder().encode(config.jwtSecret), hmac, false, ['verify'])
    : undefined;
  const jwks = config.jwksUrl ? createRemoteJWKSet(new URL(config.jwksUrl)) : undefined;
  const verified = expiring<JWTPayload>();
  const standings = expiring<UserStanding>();

  async function standingOf(userId: string, area: Area): Promise<UserStanding> {
    if (!config.userStanding) return 'active';
    const cached = standings.get(userId);
    if (cached) return cached;
    const standing = await config.userStanding(userId).catch((error) => {
      throw translateDatabaseError(error, area);
    });
    return standings.set(userId, standing, USER_STANDING_SECONDS);
  }

  /**
   * A token issued in the future, beyond the skew, comes from an issuer with a wrong clock or was minted
   * ahead on purpose; it is refused. jose checks `iat` only against a maximum token age, which the
   * project's long-lived anon and service keys rule out.
   */
  async function verify(token: string): Promise<JWTPayload> {
    const now = Date.now() / 1000;
    const cached = verified.get(token);
    if (cached && (cached.exp as number) > now) return cached;
    const payload = await verifySignature(token);
    if (typeof payload.iat === 'number' && payload.iat > now + CLOCK_SKEW_SECONDS) {
      throw new Error('token issued in the future');
    }
    return verified.set(token, payload, CACHE_SECONDS);
  }

  async function verifySignature(token: string): Promise<JWTPayload> {
    const { alg } = decodeProtectedHeader(token);
    if (alg === 'HS256' && secret) {
      return (await jwtVerify(token, await secret, { algorithms: ['HS256'], requiredClaims: ['exp'] })).payload;
    }
    if (alg !== 'HS256' && jwks) {
      return (await jwtVerify(token, jwks, { algorithms: ['ES256', 'RS256', 'EdDSA'], requiredClaims: ['exp'] }))
        .payload;
    }
    throw new Error(`unsupported algorithm ${String(alg)}`);
  }

  /** The caller a verified token names: a known role, and a user's `sub` a UUID. */
  function toCaller(claims: JWTPayload): Caller | undefined {
    if (claims.role === 'anon') return { kind: 'anonymous', role: 'anon', userId: null, claims };
    if (claims.role === 'service_role') return { kind: 'service', role: 'service_role', userId: null, claims };
    if (claims.role === 'authenticated' && typeof claims.sub === 'string' && uuid.safeParse(claims.sub).success) {
      return { kind: 'user', role: 'authenticated', userId: claims.sub, claims };
    }
  }

  return {
    async authenticate(req, access, area) {
      const unauthorized = (message: string) => new ApiError(401, area.codes.unauthorized, message);
      const header = req.headers.get('authorization');
      if (!header) {
        if (access === 'public') return ANONYMOUS;
        throw unauthorized('Missing Authorization header');
      }
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw unauthorized('Authorization header must be "Bearer <token>"');
      const caller = await verify(match[1]).then(toCaller, () => undefined);
      if (!caller) throw unauthorized('Invalid or expired token');
      if (caller.kind === 'anonymous' && access !== 'public') {
        throw unauthorized('A signed-in user or the service key is required');
      }
      if (caller.kind === 'user') {
        const standing = await standingOf(caller.userId, area);
        if (standing === 'gone') throw unauthorized('This user no longer exists');
        if (standing === 'banned') throw unauthorized('This user is banned');
      }
      return caller;
    },
  };
}
