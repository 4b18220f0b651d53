/** What the three stock functions share: the quantity rule and the JSON body they all require. */
import { z } from 'zod';
import { ApiError, inventoryArea } from './errors.ts';
import type { RequestContext } from './http.ts';

export const MAX_STOCK_QUANTITY = 1_000_000_000;

// Any 8-4-4-4-12 hex string, as PostgreSQL's uuid type accepts; z.uuid() would also demand an RFC version.
export const uuid = z.guid('must be a UUID');

export const stockQuantity = z
  .number('must be a number')
  .int('must be a whole number')
  .min(1, 'must be a positive whole number')
  .max(MAX_STOCK_QUANTITY, `must be at most ${MAX_STOCK_QUANTITY}`);

export async function requiredBody(ctx: RequestContext): Promise<unknown> {
  const body = await ctx.body();
  if (body === undefined) {
    throw new ApiError(400, inventoryArea.codes.validation, 'A JSON body is required', {
      field: 'body',
      value: null,
      constraint: 'required',
    });
  }
  return body;
}
