/** What the store route accepts: nothing (an unknown parameter is a 400 naming it). */
import { z } from 'zod';

export const settingsQuery = z.strictObject({});
