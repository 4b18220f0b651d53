/**
 * What the function accepts (seed 03 area B, CONTRACT §3B): a JSON body, every field optional, nothing
 * else. Every refusal is a 400 INVALID_PARAMETER whose details name the parameter, what was sent and
 * what is allowed, so a `"true"` string is refused rather than guessed at.
 */
import { z } from 'zod';
import { ApiError } from '../_shared/errors.ts';
import { enumOf, type FieldProblem } from '../_shared/validation.ts';

export const PERIODS = ['7d', '30d', '90d'] as const;
export const PARAMETERS = ['period', 'includeSystemHealth', 'includeTrends', 'includeInsights'] as const;

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

/** Version 2.0's body (CONTRACT §5). */
export const requestBody2 = requestBody;

/** The figures behind the scores: the period only. */
export const figuresQuery = z.strictObject({
  period: enumOf(PERIODS).default('30d'),
});

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
  if (!problem.issue) return invalidParameter('body', problem.value, ['a JSON object sent as application/json']);
  switch (problem.field) {
    case 'period':
      return invalidParameter('period', problem.value, [...PERIODS]);
    case 'includeSystemHealth':
    case 'includeTrends':
    case 'includeInsights':
      return invalidParameter(problem.field, problem.value, [true, false]);
    case '':
      return invalidParameter('body', problem.value, ['a JSON object']);
    default:
      // An unknown field: the allowed ones are what was expected.
      return invalidParameter(problem.field, problem.value, [...PARAMETERS]);
  }
}
