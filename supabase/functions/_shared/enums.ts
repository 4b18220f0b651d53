/**
 * Every list of values the API accepts or answers, as the database's enum types declare them: the generated
 * `Constants` of `database.types.ts` (`npm run types`), named as the types are. The database enforces them;
 * zod, the OpenAPI documents and the console read them from here.
 */
import { Constants } from './database.types.ts';

export const enums = Constants.public.Enums;

/**
 * A code of the API's one catalogue of refusals and failures (`public.error_code`): `ApiError` takes only
 * these, and the console words each (`console/src/i18n/errors.ts`, typed by it).
 */
export type ErrorCode = (typeof enums.error_code)[number];

export const isErrorCode = (code: string): code is ErrorCode => (enums.error_code as readonly string[]).includes(code);
