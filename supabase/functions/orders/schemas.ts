/**
 * What the orders list accepts: zod checks shape (types, formats, unknown parameters: 400); what a caller
 * may see is the tables' RLS.
 */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { enumOf, isoDateTime, queryInteger, rule, uuid } from '../_shared/validation.ts';
import { ORDER_FIGURES } from './figures.ts';
import { MIN_SEARCH_CHARACTERS } from './search.ts';

export const SORTABLE_COLUMNS = ['ordered_at', 'total_amount'] as const;

const instant = isoDateTime('must be an ISO 8601 date-time with an offset, e.g. 2026-11-24T00:00:00Z');

export const listQuery = z
  .strictObject({
    ordered_from: instant.optional(),
    ordered_before: instant.optional(),
    as_of: instant.optional(),
    status: enumOf(enums.order_status).optional(),
    figure: enumOf(ORDER_FIGURES).optional(),
    search: z
      .string()
      .trim()
      .min(MIN_SEARCH_CHARACTERS, `at least ${MIN_SEARCH_CHARACTERS} characters`)
      .max(100, 'at most 100 characters')
      .optional(),
    customer_id: z.string().pipe(uuid).optional(),
    page: queryInteger(1, 1_000_000).optional(),
    per_page: queryInteger(1, 200).optional(),
    sort_by: enumOf(SORTABLE_COLUMNS).optional(),
    sort_order: z.enum(['asc', 'desc'], 'must be asc or desc').optional(),
  })
  .refine(
    (query) =>
      !query.ordered_from || !query.ordered_before || Date.parse(query.ordered_from) < Date.parse(query.ordered_before),
    rule('after', 'must be later than ordered_from', { field: 'ordered_from' }, ['ordered_before']),
  );

/** `/:id`: one order. */
export const orderPath = z.object({ id: z.string().pipe(uuid) });
