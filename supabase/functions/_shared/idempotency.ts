/**
 * The `Idempotency-Key` request header (CONTRACT §2). Only read and checked here: the replay itself
 * happens in the database, in the same transaction as the change it protects.
 */
import type { Area } from './errors.ts';
import { validationError } from './validation.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;

/** The key, or `null` when the request carries none; a malformed key is the area's 400. */
export function idempotencyKey(req: Request, area: Area): string | null {
  const key = req.headers.get('idempotency-key');
  if (key === null || KEY.test(key)) return key;
  const constraint = '1 to 255 visible ASCII characters';
  throw validationError(area, {
    field: 'Idempotency-Key',
    value: key,
    constraint,
    rule: 'format',
    params: { format: 'idempotency_key' },
  });
}
