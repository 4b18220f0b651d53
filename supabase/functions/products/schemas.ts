/**
 * What the products endpoints accept. zod checks shape (types, formats, lengths, unknown fields: 400); the
 * database checks the rest (who may write: 403; an unknown product: 404; a taken SKU: 409) and holds the
 * same field rules for supabase.rpc callers.
 */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { enumOf, patchBody, queryBoolean, queryInteger, rule, uuid } from '../_shared/validation.ts';
import { MAX_NAME_LENGTH, MAX_REORDER_LEVEL, MAX_SKU_LENGTH, SKU_PATTERN } from './fields.ts';

/** `/:id` and the routes below it. */
export const productPath = z.object({ id: z.string().pipe(uuid) });

/** `/:id/lots/:lot`: one of the product's lots (inventory records). */
export const lotPath = productPath.extend({ lot: z.string().pipe(uuid) });

const fields = {
  sku: z
    .string('must be a string')
    .max(MAX_SKU_LENGTH, `at most ${MAX_SKU_LENGTH} characters`)
    .regex(SKU_PATTERN, 'letters, digits, dot, underscore or hyphen, starting with a letter or digit'),
  name: z.string('must be a string').trim().min(1, 'must not be empty').max(
    MAX_NAME_LENGTH,
    `at most ${MAX_NAME_LENGTH} characters`,
  ),
  is_active: z.boolean('must be true or false'),
  reorder_level: z
    .number('must be a number')
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(MAX_REORDER_LEVEL, `must be at most ${MAX_REORDER_LEVEL}`),
  allocation: enumOf(enums.stock_allocation),
};

export const createBody = z.strictObject({
  sku: fields.sku,
  name: fields.name,
  is_active: fields.is_active.optional(),
  reorder_level: fields.reorder_level.optional(),
  allocation: fields.allocation.optional(),
});

export const updateBody = patchBody(fields);

export const SORTABLE_COLUMNS = [
  'sku',
  'name',
  'current_stock',
  'available_stock',
  'reorder_level',
  'is_active',
  'created_at',
  'updated_at',
] as const;

const paging = {
  page: queryInteger(1, 1_000_000).optional(),
  per_page: queryInteger(1, 200).optional(),
};

export const listQuery = z
  .strictObject({
    search: z.string().max(100, 'at most 100 characters').optional(),
    low_stock: queryBoolean.optional(),
    stock_status: enumOf(enums.stock_status).optional(),
    is_active: queryBoolean.optional(),
    include_deleted: queryBoolean.optional(),
    ...paging,
    sort_by: enumOf(SORTABLE_COLUMNS).optional(),
    sort_order: z.enum(['asc', 'desc'], 'must be asc or desc').optional(),
  })
  .refine(
    (query) => query.sort_order === undefined || query.sort_by !== undefined,
    rule('requires', 'requires sort_by', { field: 'sort_by' }, ['sort_order']),
  );

export const movementsQuery = z.strictObject({
  ...paging,
  operation: enumOf(enums.stock_operation).optional(),
});

export const stockInsQuery = z.strictObject(paging);

/** How far ahead "expiring soon" looks by default, in store days: the console's count uses it too. */
export const EXPIRING_WITHIN_DAYS = 30;

export const expiringQuery = z.strictObject({
  within_days: queryInteger(0, 3650).optional(),
  ...paging,
});

/** The summary takes no parameters (an unknown one is a 400 naming it). */
export const summaryQuery = z.strictObject({});
