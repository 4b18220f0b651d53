/**
 * A request's JSON body: read whole before the request's database bound begins, held to MAX_BODY_BYTES, and
 * parsed as UTF-8 JSON when the route checks it (after the caller's checks).
 */
import { ApiError, type Area } from './errors.ts';
import type { FieldProblem, ProblemMapper } from './validation.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The JSON body; a request without one is the area's 400 unless the route's body is optional. */
export function parseBody(
  req: Request,
  bytes: Uint8Array | undefined,
  area: Area,
  optional: boolean,
  mapProblem?: ProblemMapper,
): unknown {
  const value = bytes === undefined ? undefined : parseJson(req, bytes, area, mapProblem);
  if (value === undefined && !optional) {
    throw new ApiError(400, area.codes.validation, 'A JSON body is required', {
      field: 'body',
      value: null,
      constraint: 'required',
      rule: 'required',
    });
  }
  return value;
}

/**
 * The body's bytes (undefined when there are none), handed over as a function that throws the 413 of a body
 * past MAX_BODY_BYTES when called, so that 413 comes after the caller's checks. A body cut off by its
 * connection's end is a 400 at once: nobody is left to answer, and nothing is worth doing for it.
 */
export async function readBytes(req: Request, area: Area): Promise<() => Uint8Array | undefined> {
  const tooLarge = () => {
    throw new ApiError(413, area.codes.payloadTooLarge, `Request body exceeds ${MAX_BODY_BYTES} bytes`);
  };
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) return tooLarge;
  if (!req.body) return () => undefined;

  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new ApiError(400, area.codes.validation, 'The request body ended before its length', {
        field: 'body',
        value: null,
        constraint: 'complete',
        rule: 'complete_body',
      });
    });
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return tooLarge;
    }
    // Deno hands each read over as a view of a 64 KiB buffer: kept as is, a body dripped a byte per read
    // would hold 64 KiB per byte until the request ends.
    chunks.push(value.byteLength * 2 < value.buffer.byteLength ? value.slice() : value);
  }
  if (size === 0) return () => undefined;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return () => bytes;
}

function parseJson(req: Request, bytes: Uint8Array, area: Area, mapProblem?: ProblemMapper): unknown {
  const unreadable = (message: string, problem: FieldProblem) =>
    mapProblem?.(problem) ?? new ApiError(400, area.codes.validation, message, { ...problem });
  const contentType = req.headers.get('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(contentType.trim())) {
    throw unreadable('Request body must be JSON (Content-Type: application/json)', {
      field: 'content-type',
      value: contentType || null,
      constraint: 'application/json',
      rule: 'json_content_type',
    });
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw unreadable('Request body is not valid JSON', {
      field: 'body',
      value: null,
      constraint: 'valid JSON',
      rule: 'json',
    });
  }
}
