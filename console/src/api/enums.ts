/**
 * The API's lists of values, as the database's enum types declare them: the generated `Constants` the
 * edge functions' zod schemas read too (supabase/functions/_shared/enums.ts), so a value added in the
 * database reaches every select of the console with `npm run types`.
 */
export { enums } from '../../../supabase/functions/_shared/enums.ts';
