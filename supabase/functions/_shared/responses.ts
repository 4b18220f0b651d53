/**
 * Building blocks of the answers' schemas (each function's `responses.ts`): what the OpenAPI document
 * promises and the tests hold every answer to.
 */
import { z } from 'zod';

/** An instant as the API sends it: ISO 8601 with an offset. */
export const timestamp = z.iso.datetime({ offset: true });

/** A calendar day, `YYYY-MM-DD`. */
export const day = z.iso.date();

/** `{ success: true, data }`, the success envelope of every area. */
export function success<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/** `{ success: true, message }`, for a change with nothing more to say. */
export const done = z.object({ success: z.literal(true), message: z.string() });
