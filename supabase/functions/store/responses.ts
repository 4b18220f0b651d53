/** What the store answers, for the OpenAPI document. */
import { z } from 'zod';
import { day, success, timestamp } from '../_shared/responses.ts';

export const storeResponse = success(z.object({
  /** An IANA time zone name, e.g. Asia/Taipei. */
  time_zone: z.string(),
  today: day,
  now: timestamp.describe("The store's clock: a client counts its days from it, whatever its own clock says"),
}));
