/**
 * Errors and the error envelopes. Each seed has its own error body; a function names its area once and
 * every failure it produces, its own or the shared layer's (401, 404, 405, 413, 500), takes that shape.
 */
import { z } from 'zod';
import type { ErrorCode } from './enums.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** A refusal the client may retry after `seconds`: in `details.retry_after` and in the Retry-After header. */
export function retryLater(status: number, code: ErrorCode, message: string, seconds: number, details = {}) {
  return new ApiError(status, code, message, { ...details, retry_after: seconds }, { 'retry-after': String(seconds) });
}

export interface Area {
  name: string;
  codes: AreaCodes;
  errorBody(error: ApiError): Record<string, unknown>;
  /** What `errorBody` builds, for the OpenAPI document. */
  errorSchema: z.ZodType;
}

const details = z.record(z.string(), z.unknown());

/** The codes the shared layer uses for its own failures; an area may name its own for some. */
const sharedCodes = {
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  validation: 'VALIDATION_ERROR',
  notFound: 'NOT_FOUND',
  methodNotAllowed: 'METHOD_NOT_ALLOWED',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  unsupportedVersion: 'UNSUPPORTED_VERSION',
  internal: 'INTERNAL_ERROR',
  database: 'INTERNAL_ERROR',
} satisfies Record<string, ErrorCode>;

export type AreaCodes = { [K in keyof typeof sharedCodes]: ErrorCode };

/**
 * An area with the envelope of seeds 01 and 02 and of seed 03 area B: `error` is a message, the code beside
 * it (`code`, or seed 01's `error_code`), and `details`.
 */
const messageAndCodeArea = (name: string, codes: Partial<AreaCodes> = {}, codeKey = 'code'): Area => ({
  name,
  codes: { ...sharedCodes, ...codes },
  errorBody: (e) => ({
    success: false,
    error: e.message,
    [codeKey]: e.code,
    ...(e.details ? { details: e.details } : {}),
  }),
  errorSchema: z.object({
    success: z.literal(false),
    error: z.string(),
    [codeKey]: z.string(),
    details: details.optional(),
  }),
});

/** Seed 01. */
export const catalogueArea = messageAndCodeArea(
  'campaign-types',
  { forbidden: 'INSUFFICIENT_PERMISSION' },
  'error_code',
);

/** Seed 02 and CONTRACT §2. */
export const inventoryArea = messageAndCodeArea('inventory');

/** Seed 03 area A: `error` is an object {code, message, details {field, value, constraint}}. */
export const campaignArea: Area = {
  name: 'campaigns',
  codes: sharedCodes,
  errorBody: (e) => ({
    success: false,
    error: { code: e.code, message: e.message, details: e.details ?? { field: null, value: null, constraint: null } },
  }),
  errorSchema: z.object({
    success: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), details }),
  }),
};

/** The orders behind business health's figures: seed 03 area B's envelope and shared codes. */
export const orderArea = messageAndCodeArea('orders');

/** The store's own settings (its time zone and today): the orders' envelope and shared codes. */
export const storeArea = messageAndCodeArea('store');

/** Seed 03 area B: database failures are DB_ERROR. */
export const healthArea = messageAndCodeArea('business-health-analytics', {
  forbidden: 'PERMISSION_DENIED',
  validation: 'INVALID_PARAMETER',
  database: 'DB_ERROR',
});
