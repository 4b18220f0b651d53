/**
 * Errors and the error envelopes. Each seed has its own error body; a function names its area once and
 * every failure it produces, its own or the shared layer's (401, 404, 405, 413, 500), takes that shape.
 */
import { z } from 'zod';
import type { ErrorCode } from './error-codes.ts';

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

/** The codes the shared layer uses for its own failures, per area. */
export interface AreaCodes {
  unauthorized: ErrorCode;
  forbidden: ErrorCode;
  validation: ErrorCode;
  notFound: ErrorCode;
  methodNotAllowed: ErrorCode;
  payloadTooLarge: ErrorCode;
  unsupportedVersion: ErrorCode;
  internal: ErrorCode;
  database: ErrorCode;
}

export interface Area {
  name: string;
  codes: AreaCodes;
  errorBody(error: ApiError): Record<string, unknown>;
  /** What `errorBody` builds, for the OpenAPI document. */
  errorSchema: z.ZodType;
}

const details = z.record(z.string(), z.unknown());

const sharedCodes: AreaCodes = {
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  validation: 'VALIDATION_ERROR',
  notFound: 'NOT_FOUND',
  methodNotAllowed: 'METHOD_NOT_ALLOWED',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  unsupportedVersion: 'UNSUPPORTED_VERSION',
  internal: 'INTERNAL_ERROR',
  database: 'INTERNAL_ERROR',
};

/** Seed 01: `error` is a message, `error_code` and `details` beside it. */
export const catalogueArea: Area = {
  name: 'campaign-types',
  codes: { ...sharedCodes, forbidden: 'INSUFFICIENT_PERMISSION' },
  errorBody: (e) => ({
    success: false,
    error: e.message,
    error_code: e.code,
    ...(e.details ? { details: e.details } : {}),
  }),
  errorSchema: z.object({
    success: z.literal(false),
    error: z.string(),
    error_code: z.string(),
    details: details.optional(),
  }),
};

/** The envelope of seed 02 and of seed 03 area B: `error` is a message, `code` and `details` beside it. */
const messageAndCode: Pick<Area, 'errorBody' | 'errorSchema'> = {
  errorBody: (e) => ({ success: false, error: e.message, code: e.code, ...(e.details ? { details: e.details } : {}) }),
  errorSchema: z.object({
    success: z.literal(false),
    error: z.string(),
    code: z.string(),
    details: details.optional(),
  }),
};

/** Seed 02 and CONTRACT §2: `error` is a message, `code` beside it. */
export const inventoryArea: Area = {
  name: 'inventory',
  codes: sharedCodes,
  ...messageAndCode,
};

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
export const orderArea: Area = {
  name: 'orders',
  codes: sharedCodes,
  ...messageAndCode,
};

/** The store's own settings (its time zone and today): the orders' envelope and shared codes. */
export const storeArea: Area = {
  name: 'store',
  codes: sharedCodes,
  ...messageAndCode,
};

/** Seed 03 area B: `error` is a message, `code` and `details` beside it; database failures are DB_ERROR. */
export const healthArea: Area = {
  name: 'business-health-analytics',
  codes: { ...sharedCodes, forbidden: 'PERMISSION_DENIED', validation: 'INVALID_PARAMETER', database: 'DB_ERROR' },
  ...messageAndCode,
};
