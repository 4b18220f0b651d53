/**
 * Every list of values the API accepts or answers, as the database's enum types declare them: the generated
 * `Constants` of `database.types.ts` (`npm run types`), named as the types are. The database enforces them;
 * zod, the OpenAPI documents and the console read them from here.
 */
import { Constants } from './database.types.ts';

export const enums = Constants.public.Enums;
