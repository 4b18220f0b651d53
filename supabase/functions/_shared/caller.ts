/**
 * Who a verified request comes from (auth.ts makes one), on its own so that the database layer, which
 * runs each transaction as the caller, needs nothing else of authentication.
 */
import type { JWTPayload } from 'jose';

export type Caller =
  | { kind: 'anonymous'; role: 'anon'; userId: null; claims: JWTPayload }
  | { kind: 'user'; role: 'authenticated'; userId: string; claims: JWTPayload }
  | { kind: 'service'; role: 'service_role'; userId: null; claims: JWTPayload };
