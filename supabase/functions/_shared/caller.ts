/**
 * Who a verified request comes from (auth.ts makes one), on its own so that the database layer, which
 * runs each transaction as the caller, needs nothing else of authentication.
 */
import type { JWTPayload } from 'jose';

export type Caller =
  & (
    | { kind: 'anonymous'; role: 'anon'; userId: null; claims: JWTPayload }
    | { kind: 'user'; role: 'authenticated'; userId: string; claims: JWTPayload }
    | { kind: 'service'; role: 'service_role'; userId: null; claims: JWTPayload }
  )
  & {
    /**
     * When the request must be answered by (ms since the epoch), set as it is served: its transaction and
     * every other wait on the database count toward this one bound rather than each starting its own.
     */
    answerBy?: number;
  };
