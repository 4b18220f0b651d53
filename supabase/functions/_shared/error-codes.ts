/**
 * Every code the API answers a refusal or a failure with (the `code` or `error_code` of each envelope):
 * the one catalogue. A function's `ApiError` takes only these (the compiler checks), the SQL functions raise
 * only these (`test/platform/error-codes.test.ts` reads `supabase/schemas/`), and the console words each in
 * Traditional Chinese and English (`console/src/i18n/errors.ts`, typed by this list, so a code without its
 * words does not build).
 */
export const ERROR_CODES = [
  // Who is asking, and what they may do.
  'UNAUTHORIZED',
  'FORBIDDEN',
  'INSUFFICIENT_PERMISSION',
  'PERMISSION_DENIED',
  'RATE_LIMIT_EXCEEDED',
  // The request itself.
  'VALIDATION_ERROR',
  'INVALID_PARAMETER',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_VERSION',
  'IDEMPOTENCY_KEY_REUSED',
  // Campaigns and their types.
  'CAMPAIGN_NOT_FOUND',
  'CAMPAIGN_OVERLAP_CONFLICT',
  'CAMPAIGN_FINAL',
  'INVALID_STATUS_TRANSITION',
  'INVALID_DATE_RANGE',
  'ATTRIBUTION_WEIGHT_EXCEEDED',
  'SPEND_OUTSIDE_CAMPAIGN',
  'TYPE_NOT_FOUND',
  'DUPLICATE_TYPE_CODE',
  'INVALID_WEIGHT_RANGE',
  'INVALID_ATTRIBUTION_LAYER',
  // Products and stock.
  'PRODUCT_NOT_FOUND',
  'PRODUCT_INACTIVE',
  'PRODUCT_HAS_STOCK',
  'PRODUCT_DELETED',
  'DUPLICATE_SKU',
  'INSUFFICIENT_STOCK',
  'EXPIRED_STOCK',
  'NO_INVENTORY_RECORD',
  'INVENTORY_RECORD_NOT_FOUND',
  // Orders.
  'ORDER_NOT_FOUND',
  'CUSTOMER_NOT_FOUND',
  'ORDER_LINES_FIXED',
  // The service.
  'LOCK_TIMEOUT',
  'SERVICE_UNAVAILABLE',
  'CALCULATION_ERROR',
  'DB_ERROR',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

export function isErrorCode(code: string): code is ErrorCode {
  return CODES.has(code);
}
