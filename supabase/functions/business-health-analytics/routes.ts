/** business-health-analytics's routes, as `createRoute` declares them: the report in two versions, and its figures. */
import { createRoute } from '@hono/zod-openapi';
import { answers, jsonBody } from '../_shared/openapi.ts';
import { daysResponse, figuresResponse, reportResponse, reportResponse2 } from './responses.ts';
import { daysQuery, figuresQuery, requestBody, requestBody2 } from './schemas.ts';

export const report = createRoute({
  method: 'post',
  path: '/',
  summary: 'Compute the health report for a period (its words in English with Accept-Language: en)',
  request: { body: jsonBody(requestBody, { period: '30d', includeTrends: true, includeInsights: true }) },
  responses: answers(reportResponse, { errors: [403, 429] }),
});

/** The same operation in version 2.0, chosen with the Accept header. */
export const report2 = createRoute({
  method: 'post',
  path: '/',
  summary: "Version 2.0 adds the marketing score from the campaigns' return (ROAS), explained in " +
    '`marketingDetails`, and insights naming campaigns',
  request: {
    body: jsonBody(requestBody2, { period: 'custom', from: '2026-10-01', to: '2026-10-31', compare: 'last_year' }),
  },
  responses: answers(reportResponse2, { errors: [403, 429] }),
});

export const figures = createRoute({
  method: 'get',
  path: '/figures',
  summary: 'The figures behind the scores (administrators): revenue, orders, customers, tickets and campaigns of ' +
    'the period and the one before it, each as it stood at its end (a custom period: as its store days stand now)',
  request: { query: figuresQuery },
  responses: answers(figuresResponse, { errors: [403] }),
});

export const days = createRoute({
  method: 'get',
  path: '/days',
  summary: "Today so far and yesterday (administrators): each store day's revenue, counted, placed, " +
    "completed and cancelled orders, as it stood at its end, in the store's time zone",
  request: { query: daysQuery },
  responses: answers(daysResponse, { errors: [403] }),
});
