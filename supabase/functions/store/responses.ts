/** What the store answers, for the OpenAPI document. */
import { z } from 'zod';
import { day, success } from '../_shared/responses.ts';

export const storeResponse = success(z.object({
  /** An IANA time zone name, e.g. Asia/Taipei. */
  time_zone: z.string(),
  today: day,
}));
