/**
 * Building blocks of the answers' schemas (each function's `responses.ts`): what the OpenAPI document
 * promises and the tests hold every answer to.
 */
import { z } from 'zod';

/**
 * An instant as the API sends it, its one format: ISO 8601 in UTC with milliseconds and `Z`,
 * `2026-11-23T16:00:00.123Z` (what JSON.stringify makes of a Date; SQL that builds an answer as jsonb uses
 * private.api_timestamp for the same text).
 */
export const timestamp = z.iso.datetime({ precision: 3 });

/** A calendar day, `YYYY-MM-DD`. */
export const day = z.iso.date();

/** `{ success: true, data }`, the success envelope of every area. */
export function success<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/** `{ success: true, message }`, for a change with nothing more to say. */
export const done = z.object({ success: z.literal(true), message: z.string() });

const count = z.number().int();

/** A page of rows as seeds 01 and 02 list them (`pageAnswer`): the rows, how many, and where the page stands. */
export function listPage<T extends z.ZodType>(row: T) {
  return z.object({
    success: z.literal(true),
    data: z.array(row),
    count,
    pagination: z.object({ page: count, per_page: count, total_count: count, total_pages: count }),
  });
}
