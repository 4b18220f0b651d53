/**
 * Gives memory back to the system after a crowd of connections has come and gone (5,000 held uploads, say).
 * Two things keep it otherwise, measured on Deno 2 with glibc: V8 frees a request's buffers only when it next
 * collects garbage, and keeps the heap it grew for the crowd; and glibc's allocator keeps what is freed for its
 * own reuse rather than returning it. Measured: 1,000 held uploads left the process 400 MB above its start
 * after they closed, 1,000 more took it higher.
 *
 * So, once a crowd (at least `CROWD` connections open at once) has thinned to a quarter for two checks in a
 * row, and the process has grown by `GROWTH_BYTES` since it last gave memory back: V8's most thorough
 * collection (`gc`, exposed by `--v8-flags=--expose-gc`, as a heap snapshot would run it), then, a check
 * later, once V8 has freed the buffers it found dead, glibc's `malloc_trim(0)` through FFI, allowed for libc
 * alone (`libc.mjs`). Either half is skipped where it is missing. Ordinary traffic, a few dozen connections,
 * is never a crowd, so never pauses for it.
 */
import { LIBC_CANDIDATES } from './libc.mjs';

const CHECK_MS = 1_000;
const CROWD = 256;
const GROWTH_BYTES = 64 * 1024 * 1024;

export function releaseMemoryAfterCrowds(openConnections: () => number): { stop(): void } {
  const gc = (globalThis as { gc?: (options: object) => void }).gc;
  const trim = mallocTrim();
  let baseline = Deno.memoryUsage().rss;
  let peak = 0;
  let thinChecks = 0;
  let collected = false;
  const timer = setInterval(() => {
    if (collected) {
      trim?.();
      baseline = Deno.memoryUsage().rss;
      collected = false;
      // A crowd still open (one arriving slowly, on a loaded machine, thins and grows again) stays a crowd:
      // what it holds next is given back too. Forgotten once every connection of it is gone.
      if (openConnections() === 0) peak = 0;
      return;
    }
    const open = openConnections();
    peak = Math.max(peak, open);
    thinChecks = peak >= CROWD && open < peak / 4 ? thinChecks + 1 : 0;
    if (thinChecks < 2) return;
    if (Deno.memoryUsage().rss - baseline < GROWTH_BYTES) return;
    gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    collected = true;
  }, CHECK_MS);
  Deno.unrefTimer(timer);
  return { stop: () => clearInterval(timer) };
}

function mallocTrim(): (() => void) | undefined {
  const path = LIBC_CANDIDATES.find((file) =>
    Deno.permissions.querySync({ name: 'ffi', path: file }).state === 'granted'
  );
  if (!path) return undefined;
  try {
    const libc = Deno.dlopen(path, { malloc_trim: { parameters: ['usize'], result: 'i32' } });
    return () => void libc.symbols.malloc_trim(0n);
  } catch {
    // Not glibc after all: nothing to trim with.
    return undefined;
  }
}
