/**
 * zod validation that fails with a 400 in the area's envelope. `details` names the offending field, the
 * value sent and the rule it broke, which is also the shape area A of seed 03 asks for.
 */
import { z } from 'zod';
import { ApiError, type Area } from './errors.ts';

export interface FieldProblem {
  field: string;
  value: unknown;
  constraint: string;
  /**
   * The rule broken, as a stable code a client words in its own language (`required`, `max_length`...), and
   * the rule's figures (`{ max: 64 }`): `constraint` says the same in English. See docs/architecture.md.
   */
  rule?: string;
  params?: Record<string, unknown>;
  /** The rule zod found broken; absent when the body could not be read as JSON at all. */
  issue?: z.core.$ZodIssue;
}

/** Maps the first problem to an error; the default is the area's 400 validation error. */
export type ProblemMapper = (problem: FieldProblem) => ApiError | undefined;

/**
 * zod-openapi's validation hook: a refused part of the request (its first problem) in the area's envelope,
 * or in the route's own words (`c.var.problem`). A part that passes is still held to text a column can store.
 */
export function validationHook(area: Area) {
  // A refused part's `data` is what was sent: @hono/zod-validator hands it on, though its type says not.
  return (
    result: { success: boolean; data?: unknown; error?: z.ZodError },
    c: { var: { problem?: ProblemMapper } },
  ): undefined => {
    const mapProblem = c.var.problem;
    checkText(result.data, area, mapProblem);
    if (result.success) return;
    const problem = describe(result.error!.issues[0], result.data);
    throw mapProblem?.(problem) ?? validationError(area, problem);
  };
}

export function validationError(area: Area, problem: Omit<FieldProblem, 'issue'>): ApiError {
  const what = problem.field ? `Invalid ${problem.field}: ${problem.constraint}` : problem.constraint;
  return new ApiError(400, area.codes.validation, what, {
    field: problem.field || null,
    value: problem.value === undefined ? null : problem.value,
    constraint: problem.constraint,
    rule: problem.rule ?? 'invalid',
    ...(problem.params ? { params: problem.params } : {}),
  });
}

/**
 * A refine's rule, for `details.rule`: `z.refine(check, rule('not_zero', 'must not be 0'))`. zod's own
 * checks (lengths, ranges, formats, lists) are named from their issues.
 */
export function rule(code: string, message: string, params?: Record<string, unknown>, path?: string[]) {
  return { message, params: { rule: code, ...(params ? { figures: params } : {}) }, ...(path ? { path } : {}) };
}

/** The stable rule a zod issue broke, and its figures. */
function ruleOf(issue: z.core.$ZodIssue, value: unknown): Pick<FieldProblem, 'rule' | 'params'> {
  const bound = (kind: 'min' | 'max', origin: string, limit: unknown) => {
    const of = origin === 'string' ? '_length' : origin === 'array' || origin === 'set' ? '_items' : '';
    return { rule: kind + of, params: { [kind]: Number(limit) } };
  };
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return { rule: 'required' };
      return { rule: 'type', params: { expected: issue.expected } };
    case 'too_small':
      return bound('min', issue.origin, issue.minimum);
    case 'too_big':
      return bound('max', issue.origin, issue.maximum);
    case 'invalid_format':
      return { rule: 'format', params: { format: issue.format === 'regex' ? 'pattern' : issue.format } };
    case 'invalid_value':
      return { rule: 'one_of', params: { values: issue.values } };
    case 'custom': {
      const { rule: code, figures } = (issue.params ?? {}) as { rule?: string; figures?: Record<string, unknown> };
      return { rule: code ?? 'invalid', ...(figures ? { params: figures } : {}) };
    }
    default:
      return { rule: 'invalid' };
  }
}

/** NUL, which PostgreSQL text cannot hold, or half of a UTF-16 surrogate pair, which UTF-8 cannot encode. */
const storable = (text: string) => !text.includes('\u0000') && text.isWellFormed();
const UNSTORABLE_RULE = 'must not contain NUL or unpaired surrogate characters';

/**
 * Refuses a string anywhere in `input` (keys included) that no text column could store, whatever the
 * route's schema says: PostgreSQL would refuse it with a data exception that says nothing useful.
 */
export function checkText(input: unknown, area: Area, mapProblem?: ProblemMapper): void {
  const found = unstorable(input);
  if (!found) return;
  const problem = { field: found, value: null, constraint: UNSTORABLE_RULE, rule: 'storable_text' };
  throw mapProblem?.(problem) ?? validationError(area, problem);
}

interface Step {
  value: unknown;
  key?: string;
  parent?: Step;
}

/** The path of the first unstorable string or key, walked without recursion: JSON may nest 50,000 deep. */
function unstorable(input: unknown): string | undefined {
  const path = (step: Step, key?: string) => {
    const keys = key === undefined ? [] : [key];
    for (let at: Step | undefined = step; at?.key !== undefined; at = at.parent) keys.unshift(at.key);
    return keys.join('.');
  };
  const pending: Step[] = [{ value: input }];
  while (pending.length) {
    const step = pending.pop()!;
    if (typeof step.value === 'string') {
      if (!storable(step.value)) return path(step);
    } else if (step.value !== null && typeof step.value === 'object') {
      for (const [key, value] of Object.entries(step.value)) {
        if (!storable(key)) return path(step, key);
        pending.push({ value, key, parent: step });
      }
    }
  }
  return undefined;
}

function describe(issue: z.core.$ZodIssue, input: unknown): FieldProblem {
  const unknownKey = issue.code === 'unrecognized_keys';
  const path = unknownKey ? [...issue.path, issue.keys[0]] : issue.path;
  const [field, value] = [path.map(String).join('.'), valueAt(input, path)];
  if (unknownKey) return { field, value: echo(value), constraint: 'unknown field', rule: 'unknown_field', issue };
  const constraint = value === undefined && issue.code === 'invalid_type' ? 'required' : issue.message;
  return { field, value: echo(value), constraint, ...ruleOf(issue, value), issue };
}

const ECHO_LIMIT = 1000;

/**
 * The refused value as the error repeats it: whole when small, else cut short. A value of any size or depth
 * (an array nested 50,000 deep) would otherwise make the error itself unanswerable.
 */
function echo(value: unknown): unknown {
  if (typeof value === 'string') return value.length > ECHO_LIMIT ? `${value.slice(0, ECHO_LIMIT)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  try {
    if (JSON.stringify(value).length <= ECHO_LIMIT) return value;
  } catch {
    // Nested too deep for JSON.stringify: described below instead.
  }
  return Array.isArray(value)
    ? `an array of ${value.length} items`
    : `an object of ${Object.keys(value).length} fields`;
}

const valueAt = (input: unknown, path: PropertyKey[]): unknown =>
  path.reduce(
    (at, key) => at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined,
    input,
  );

/**
 * One of `values`: an enum of the database (`enums.ts`) or a list the API itself owns. A value outside them
 * breaks the rule worded as the database words it (`private.one_of`).
 */
export function enumOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, `must be one of ${values.join(', ')}`);
}

/** A query-string boolean: exactly `true` or `false`. */
export const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** A calendar date `YYYY-MM-DD` PostgreSQL can store: a real day, in year 1 or later. */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
  }, rule('real_date', 'must be a real calendar date'))
  .refine((value) => !value.startsWith('0000'), rule('year_one', 'must be in year 1 or later'));

/** An ISO 8601 date-time with an offset, in year 1 or later (PostgreSQL has no year 0). */
export function isoDateTime(message: string) {
  return z.iso
    .datetime({ offset: true, message })
    .refine((value) => !value.startsWith('0000'), rule('year_one', 'must be in year 1 or later'));
}

/** Any 8-4-4-4-12 hex string, as PostgreSQL's uuid type accepts; z.uuid() would also demand an RFC version. */
export const uuid = z.guid('must be a UUID');

/**
 * At most two decimal places, exactly: the shortest decimal that reads back as the number (what JSON carries
 * to the database) has at most two digits after the point, so 10.000000001 is refused here as the database
 * refuses it, with the same rule.
 */
export function twoDecimals() {
  return z.refine<number>(
    (value) => /^-?\d+(\.\d{1,2})?$/.test(String(value)),
    rule('decimals', 'at most 2 decimal places', { max: 2 }),
  );
}

/** A partial update: any of `fields` and nothing else, at least one of them. */
export function patchBody<Shape extends z.core.$ZodLooseShape>(fields: Shape) {
  return z
    .strictObject(fields)
    .partial()
    .refine(
      (changes) => Object.keys(changes).length > 0,
      rule('not_empty', 'the body must contain at least one field to change'),
    );
}

/** A positive integer sent in a query string. */
export function queryInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

/**
 * A request's list of lines (a delivery's `items`, an order's `lines`): a refused line is named by its index
 * too (`details.index`), as the database names it.
 */
export function linesProblem(field: string, area: Area): ProblemMapper {
  const pattern = new RegExp(`^${field}\\.(\\d+)(\\.|$)`);
  return (problem) => {
    const line = pattern.exec(problem.field);
    if (!line) return undefined;
    const error = validationError(area, problem);
    return new ApiError(error.status, error.code, error.message, { ...error.details, index: Number(line[1]) });
  };
}
