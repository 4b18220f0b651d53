import { SignJWT } from 'jose';

// The Supabase CLI's local defaults, so the well-known local demo keys work here as with `supabase start`.
export const JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
export const ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
export const SERVICE_ROLE_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU';
export const DEMO_ADMIN_ID = '00000000-0000-4000-8000-000000000001';
export const DEMO_CUSTOMER_ID = '00000000-0000-4000-8000-000000000002';

/** A token as Supabase Auth issues it: HS256, `sub`, `role`, `aud`, `exp`. */
export function mintToken({ role, sub, expiresIn = '1h', secret = JWT_SECRET, claims = {} }) {
  const jwt = new SignJWT({ role, ...(role === 'authenticated' ? { aud: 'authenticated' } : {}), ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setIssuer('supabase-local')
    .setExpirationTime(expiresIn);
  if (sub) jwt.setSubject(sub);
  return jwt.sign(new TextEncoder().encode(secret));
}

/** The token for each kind of caller `npm run token` knows. */
export function tokenFor(kind, { expiresIn } = {}) {
  switch (kind) {
    case 'admin':
      return mintToken({ role: 'authenticated', sub: DEMO_ADMIN_ID, expiresIn });
    case 'customer':
      return mintToken({ role: 'authenticated', sub: DEMO_CUSTOMER_ID, expiresIn });
    case 'anon':
      return expiresIn ? mintToken({ role: 'anon', expiresIn }) : Promise.resolve(ANON_KEY);
    case 'service':
      return expiresIn ? mintToken({ role: 'service_role', expiresIn }) : Promise.resolve(SERVICE_ROLE_KEY);
    default:
      throw new Error(`unknown caller kind "${kind}": use admin, customer, anon or service`);
  }
}
