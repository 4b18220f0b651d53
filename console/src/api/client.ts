/**
 * The one way the console reaches the back office: `supabase.functions.invoke`, typed by the OpenAPI
 * document (`openapi.gen.ts`, generated from docs/openapi.json). `api('get', '/campaigns', { query })`
 * checks the path, its parameters, the body and the answer against the document at compile time.
 */
import { createClient, FunctionsFetchError, FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js';
import type { paths } from './openapi.gen.ts';
import { common } from '../i18n/common.ts';
import { isErrorCode } from '../../../supabase/functions/_shared/enums.ts';
import { ERROR_WORDS, RULES_EN, RULES_ZH, zhRefusal } from '../i18n/errors.ts';
import { locale, text } from '../i18n/index.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation = { responses: unknown; parameters: unknown };
/** The paths that answer a method. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P][M & keyof paths[P]] extends Operation ? P : never;
}[keyof paths];
type Op<P extends keyof paths, M extends Method> = paths[P][M & keyof paths[P]];
type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/** The success answer (200 or 201) of an operation. */
export type Ok<O> = O extends { responses: infer R } ? Json<R[Extract<keyof R, 200 | 201>]> : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? Q : never;
type PathOf<O> = O extends { parameters: { path: infer Pp } } ? Pp : never;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export interface CallOptions<O> {
  path?: PathOf<O>;
  query?: QueryOf<O>;
  body?: BodyOf<O>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A refused or failed call, in words: `message` is shown to people, `field` names the form field at fault. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
  /**
   * The input field the API blamed: `details.field` (most areas) or `details.parameter` (business health);
   * for a conflict, the field whose value is taken.
   */
  get field(): string | undefined {
    const field = this.details?.field ?? this.details?.parameter ?? CONFLICT_FIELDS[this.code];
    return typeof field === 'string' ? field : undefined;
  }
}

/** The field whose value a conflict found taken: a SKU, a type code. */
const CONFLICT_FIELDS: Record<string, string> = { DUPLICATE_SKU: 'sku', DUPLICATE_TYPE_CODE: 'type_code' };

let client: SupabaseClient | undefined;
let onUnauthorized: () => void = () => {};

/** The client every call goes through; `accessToken` supplies the signed-in user's token on each call. */
export function configureClient(
  supabaseUrl: string,
  anonKey: string,
  accessToken: () => Promise<string | null>,
  unauthorized: () => void,
) {
  client = createClient(supabaseUrl, anonKey, { accessToken });
  onUnauthorized = unauthorized;
}

/**
 * Calls `onChange` whenever a row of `table` the signed-in user may read changes (Supabase Realtime
 * `postgres_changes`, RLS applied), and `onFailure` when the subscription cannot be held. Returns the
 * unsubscribe.
 */
export function subscribeToChanges(table: string, onChange: () => void, onFailure: () => void): () => void {
  if (!client) throw new Error(text(common).notConfigured);
  const channel = client
    .channel(`changes:${table}`)
    .on('postgres_changes', { event: '*', schema: 'public', table }, onChange)
    .subscribe((status) => {
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') onFailure();
    });
  return () => void client?.removeChannel(channel);
}

function invocationName(path: string, params?: Record<string, unknown>, query?: Record<string, unknown>) {
  let name = path.replace(/^\//, '').replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params?.[key];
    if (value === undefined || value === null || value === '') throw new Error(`missing path parameter ${key}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  if (search.size) name += `?${search}`;
  return name;
}

/** Reads every area's error envelope into one shape (the areas kept their seeds' envelopes). */
export function errorFromBody(status: number, body: unknown): ApiError {
  const b = (body ?? {}) as Record<string, unknown>;
  const nested = typeof b.error === 'object' && b.error !== null ? (b.error as Record<string, unknown>) : undefined;
  const message = String(nested?.message ?? b.error ?? b.message ?? `The server answered ${status}.`);
  const code = String(nested?.code ?? b.code ?? b.error_code ?? `HTTP_${status}`);
  const details = (nested?.details ?? b.details) as Record<string, unknown> | undefined;
  return new ApiError(message, status, code, details);
}

/** A field rule the API names (`details.rule`), in the console's language; undefined for one it does not know. */
function ruleInWords(error: ApiError): string | undefined {
  const rule = error.details?.rule;
  const words = typeof rule === 'string' ? (locale() === 'zh-TW' ? RULES_ZH : RULES_EN)[rule] : undefined;
  const figures = (error.details?.params ?? {}) as Record<string, unknown>;
  return words?.(figures, (error.field ?? '').split('.').at(-1) ?? '');
}

/**
 * A refusal the user can act on, in the console's language: a field's rule, the failures said by their status,
 * then the catalogue's words for the code; only a code outside the catalogue keeps the API's own words.
 */
function inWords(error: ApiError): ApiError {
  const t = text(common);
  const said = (message: string) => new ApiError(message, error.status, error.code, error.details);
  const rule = error.status === 400 ? ruleInWords(error) : undefined;
  switch (true) {
    case rule !== undefined:
      return said(rule!);
    case error.status === 401:
      return said(t.sessionEnded);
    case error.status === 429: {
      const wait = Number(error.details?.retry_after);
      return said(t.tooMany(Number.isFinite(wait) && wait > 0 ? wait : undefined));
    }
    case error.status === 503:
      return said(t.unavailable);
    case error.status >= 500:
      return said(t.serverFailed);
    case isErrorCode(error.code):
      return said(text(ERROR_WORDS)[error.code](error.details ?? {}));
    case locale() === 'zh-TW':
      return said(zhRefusal(error.message));
    default:
      return error;
  }
}

export async function api<M extends Method, P extends PathsWith<M>>(
  method: M,
  path: P,
  options: CallOptions<Op<P, M>> = {},
): Promise<Ok<Op<P, M>>> {
  if (!client) throw new Error(text(common).notConfigured);
  const name = invocationName(
    path,
    options.path as Record<string, unknown> | undefined,
    options.query as Record<string, unknown> | undefined,
  );
  const { data, error } = await client.functions.invoke(name, {
    method: method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    body: options.body as Record<string, unknown> | undefined,
    // The health report's words come in the console's language.
    headers: { 'accept-language': locale(), ...options.headers },
    signal: options.signal,
  });
  if (!error) return data as Ok<Op<P, M>>;
  if (error instanceof FunctionsHttpError) {
    const response = error.context as Response;
    const body = await response.json().catch(() => undefined);
    const failure = inWords(errorFromBody(response.status, body));
    if (failure.status === 401) onUnauthorized();
    throw failure;
  }
  if (options.signal?.aborted) throw new DOMException('aborted', 'AbortError');
  if (error instanceof FunctionsFetchError) {
    throw new ApiError(text(common).unreachable, 0, 'NETWORK');
  }
  throw new ApiError(error.message || text(common).requestFailed, 0, 'UNKNOWN');
}
