/**
 * What the function accepts (seed 03 area B, CONTRACT §3B): a JSON body, every field optional, nothing
 * else. Every refusal is a 400 INVALID_PARAMETER whose details name the parameter, what was sent and
 * what is allowed, so a `"true"` string is refused rather than guessed at.
 */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { ApiError } from '../_shared/errors.ts';
import { enumOf, type FieldProblem, isoDate } from '../_shared/validation.ts';

/** Version 2.0's periods: the seeds' and a custom stretch of store days (CONTRACT §5; the database's health_period). */
export const PERIODS_2 = enums.health_period;
/** Version 1.0's, the seeds' rolling windows. */
type RollingPeriod = Exclude<(typeof PERIODS_2)[number], 'custom'>;
export const PERIODS = PERIODS_2.filter((p): p is RollingPeriod => p !== 'custom') as [
  RollingPeriod,
  ...RollingPeriod[],
];
export const PARAMETERS = ['period', 'includeSystemHealth', 'includeTrends', 'includeInsights'] as const;
/** What a custom period is compared with: the as many days before it, the same days a year before, or others. */
export const COMPARISONS = enums.health_comparison;
/** A custom period's fields; the database checks how their days stand to each other and to today. */
const CUSTOM_FIELDS = ['from', 'to', 'compare', 'compare_from', 'compare_to'] as const;
export const PARAMETERS_2 = [...PARAMETERS, ...CUSTOM_FIELDS] as const;

// No body at all is the same as `{}`: every default.
export const requestBody = z
  .strictObject({
    period: z.enum(PERIODS).default('30d'),
    includeSystemHealth: z.boolean().default(true),
    includeTrends: z.boolean().default(true),
    includeInsights: z.boolean().default(true),
  })
  .prefault({});

export type HealthRequest = z.infer<typeof requestBody>;

/**
 * A custom period's days are given with `period: "custom"` and only then; `compare_from` and `compare_to` with
 * `compare: "custom"` and only then.
 */
function customFieldsBelong(
  value: { period?: string; compare?: string } & Partial<Record<(typeof CUSTOM_FIELDS)[number], unknown>>,
  ctx: z.RefinementCtx,
) {
  for (const field of CUSTOM_FIELDS) {
    const wanted = field.startsWith('compare_') ? value.compare === 'custom' : value.period === 'custom';
    const given = value[field] !== undefined;
    if (given !== wanted && (given || field !== 'compare')) {
      ctx.addIssue({ code: 'custom', path: [field], message: given ? 'not with this period' : 'required' });
    }
  }
}

/** Version 2.0's body (CONTRACT §5): the seeds' fields, and `period: "custom"` with its store days. */
export const requestBody2 = z
  .strictObject({
    period: z.enum(PERIODS_2).default('30d'),
    from: isoDate.optional(),
    to: isoDate.optional(),
    compare: z.enum(COMPARISONS).optional(),
    compare_from: isoDate.optional(),
    compare_to: isoDate.optional(),
    includeSystemHealth: z.boolean().default(true),
    includeTrends: z.boolean().default(true),
    includeInsights: z.boolean().default(true),
  })
  .superRefine(customFieldsBelong)
  .prefault({});

/** The figures behind the scores: the period, and a custom period's days as the report takes them. */
export const figuresQuery = z.strictObject({
  period: enumOf(PERIODS_2).default('30d'),
  from: isoDate.optional(),
  to: isoDate.optional(),
  compare: enumOf(COMPARISONS).optional(),
  compare_from: isoDate.optional(),
  compare_to: isoDate.optional(),
}).superRefine(customFieldsBelong);

/** The days route takes no parameters: the days are the store's today and yesterday. */
export const daysQuery = z.strictObject({});

export function invalidParameter(parameter: string, provided: unknown, expected: unknown[]): ApiError {
  return new ApiError(400, 'INVALID_PARAMETER', `Invalid parameter: ${parameter}`, {
    parameter,
    provided: provided === undefined ? null : provided,
    expected,
  });
}

export function parameterProblem(problem: FieldProblem): ApiError {
  return refusal(problem, PERIODS, PARAMETERS);
}

/** Version 2.0's refusals: its periods and fields. */
export function parameterProblem2(problem: FieldProblem): ApiError {
  return refusal(problem, PERIODS_2, PARAMETERS_2);
}

function refusal(problem: FieldProblem, periods: readonly string[], parameters: readonly string[]): ApiError {
  if (!problem.issue) return invalidParameter('body', problem.value, ['a JSON object sent as application/json']);
  if (problem.field === '') return invalidParameter('body', problem.value, ['a JSON object']);
  // In 1.0 a custom period's fields are unknown fields like any other.
  switch (parameters.includes(problem.field) ? problem.field : undefined) {
    case 'period':
      return invalidParameter('period', problem.value, [...periods]);
    case 'compare':
      return invalidParameter('compare', problem.value, [...COMPARISONS]);
    case 'from':
    case 'to':
      return invalidParameter(problem.field, problem.value, ['a store day, YYYY-MM-DD, with period "custom"']);
    case 'compare_from':
    case 'compare_to':
      return invalidParameter(problem.field, problem.value, ['a store day, YYYY-MM-DD, with compare "custom"']);
    case 'includeSystemHealth':
    case 'includeTrends':
    case 'includeInsights':
      return invalidParameter(problem.field, problem.value, [true, false]);
    default:
      // An unknown field: the allowed ones are what was expected.
      return invalidParameter(problem.field, problem.value, [...parameters]);
  }
}
