/**
 * A request's body, read whole before the request's database bound begins and held to MAX_BODY_BYTES. Hono's
 * `bodyLimit` cannot do both halves of this: it answers its 413 where it reads, and it must read before the
 * bound, which is before the caller is known (an anonymous caller is told 401, whatever it sent).
 */
import { ApiError, type Area } from './errors.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The body's bytes (undefined when there are none), or the 413 of a body past MAX_BODY_BYTES, when called. */
export type Body = () => Uint8Array<ArrayBuffer> | undefined;

/**
 * The body's bytes, as `Body`. A body cut off by its connection's end is a 400 at once: nobody is left to
 * answer, and nothing is worth doing for it.
 */
export async function readBytes(req: Request, area: Area): Promise<Body> {
  const tooLarge = () => {
    throw new ApiError(413, area.codes.payloadTooLarge, `Request body exceeds ${MAX_BODY_BYTES} bytes`);
  };
  if (Number(req.headers.get('content-length') ?? '0') > MAX_BODY_BYTES) return tooLarge;
  if (!req.body) return () => undefined;

  const chunks: Uint8Array<ArrayBuffer>[] = [];
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
  const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
  return () => bytes;
}
