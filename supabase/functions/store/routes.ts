/** store's routes, as `createRoute` declares them: what each takes and answers, for the checks and the document. */
import { createRoute } from '@hono/zod-openapi';
import { answers } from '../_shared/openapi.ts';
import { storeResponse } from './responses.ts';
import { settingsQuery } from './schemas.ts';

export const settings = createRoute({
  method: 'get',
  path: '/',
  summary: "The store's time zone (IANA name) and today in it",
  request: { query: settingsQuery },
  responses: answers(storeResponse),
});
