/** What the catalogue accepts: seed 01's field rules and CONTRACT §1, one zod schema per input. */
import { enums } from '../_shared/enums.ts';
import { z } from 'zod';
import { ApiError } from '../_shared/errors.ts';
import { isAttributionLayer } from './layers.ts';
import type { FieldProblem } from '../_shared/validation.ts';
import { MAX_WEIGHT } from '../_shared/money.ts';
import { Limits } from '../_shared/database.types.ts';
import { enumOf, patchBody, queryBoolean, queryInteger, rule, twoDecimals } from '../_shared/validation.ts';

export const TYPE_CODE_PATTERN = /^[a-z][a-z0-9_]*$/;
export const WEIGHT_RANGE = `0.00-${MAX_WEIGHT}`;

const typeCode = z.string().max(50, 'at most 50 characters').regex(TYPE_CODE_PATTERN, 'must match ^[a-z][a-z0-9_]*$');
const text = (max: number) => z.string().max(max, `at most ${max} characters`);
const name = z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters');

// Layer and weight are checked by value here, and their failures carry the seed's own error codes.
const layer = z.string().refine(
  isAttributionLayer,
  rule('one_of', 'must be one of the four attribution layers', { values: enums.attribution_layer }),
);
const weight = z
  .number()
  .min(0, `must be between 0.00 and ${MAX_WEIGHT}`)
  .max(MAX_WEIGHT, `must be between 0.00 and ${MAX_WEIGHT}`)
  .check(twoDecimals());
const priority = z.number().int('must be a whole number')
  .min(0, `must be between 0 and ${Limits.priority}`)
  .max(Limits.priority, `must be between 0 and ${Limits.priority}`);

const editableFields = {
  display_name_zh: name,
  display_name_en: text(100).nullable(),
  attribution_layer: layer,
  default_weight: weight,
  default_priority: priority,
  color_class: text(100).nullable(),
  icon_name: text(100).nullable(),
  description: text(1000).nullable(),
  is_active: z.boolean(),
};

/** `/:type_code`: any text; an unknown or malformed code is the handler's 404 or verdict. */
export const typeCodePath = z.object({ type_code: z.string() });

export const createBody = z.strictObject({
  type_code: typeCode,
  ...editableFields,
  display_name_en: editableFields.display_name_en.optional(),
  default_weight: weight.optional(),
  default_priority: priority.optional(),
  color_class: editableFields.color_class.optional(),
  icon_name: editableFields.icon_name.optional(),
  description: editableFields.description.optional(),
  is_active: z.boolean().optional(),
});

// The type code names the row: a body that tries to change it is refused before anything else in it.
export const updateBody = z
  .unknown()
  .refine(
    (body) => !(body !== null && typeof body === 'object' && 'type_code' in body),
    rule('read_only', 'type_code cannot be changed', undefined, ['type_code']),
  )
  .pipe(patchBody(editableFields));

export const SORTABLE_COLUMNS = [
  'type_code',
  'display_name_zh',
  'display_name_en',
  'attribution_layer',
  'default_weight',
  'default_priority',
  'is_active',
  'created_at',
  'updated_at',
] as const;

export const listQuery = z
  .strictObject({
    includeInactive: queryBoolean.optional(),
    page: queryInteger(1, 1_000_000).optional(),
    per_page: queryInteger(1, 200).optional(),
    sort_by: enumOf(SORTABLE_COLUMNS).optional(),
    sort_order: z.enum(['asc', 'desc'], 'must be asc or desc').optional(),
  })
  .refine(
    (query) => query.sort_order === undefined || query.sort_by !== undefined,
    rule('requires', 'requires sort_by', { field: 'sort_by' }, ['sort_order']),
  );

/** Turns a bad layer or an out-of-range weight into the seed's dedicated errors (CONTRACT §1: 400). */
export function catalogueProblem(problem: FieldProblem): ApiError | undefined {
  if (problem.field === 'attribution_layer' && typeof problem.value === 'string') {
    return new ApiError(400, 'INVALID_ATTRIBUTION_LAYER', `Invalid attribution layer: ${problem.value}`, {
      provided_layer: problem.value,
      valid_layers: [...enums.attribution_layer],
    });
  }
  if (
    problem.field === 'default_weight' && typeof problem.value === 'number' &&
    (problem.value < 0 || problem.value > MAX_WEIGHT)
  ) {
    return new ApiError(400, 'INVALID_WEIGHT_RANGE', `default_weight must be between 0.00 and ${MAX_WEIGHT}`, {
      provided_weight: problem.value,
      valid_range: WEIGHT_RANGE,
    });
  }
  return undefined;
}
