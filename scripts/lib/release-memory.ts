/**
 * Gives memory back to the system after a crowd of connections has come and gone (5,000 held uploads, say).
 * Two things keep it otherwise, measured on Deno 2 with glibc: V8 frees a request's buffers only when it next
 * collects garbage, and keeps the heap it grew for the crowd; and glibc's allocator keeps what is freed for its
 * own reuse rather than returning it. Measured: 1,000 held uploads left the process 400 MB above its start
 * after they closed, 1,000 more took it higher.
 *
 * When to do it is `crowdReleases`, a pure function of what each check sees. The release is V8's most thorough
 * collection (`gc`, exposed by `--v8-flags=--expose-gc`, as a heap snapshot would run it), then, a check later,
 * once V8 has freed the buffers it found dead, glibc's `malloc_trim(0)` through FFI, allowed for libc alone
 * (`libc.mjs`). Either half is skipped where it is missing.
 */
import { LIBC_CANDIDATES } from './libc.mjs';

const CHECK_MS = 1_000;
/** At least this many connections open at once are a crowd. */
const CROWD = 256;
/** Ordinary traffic, a few dozen connections, is never a crowd, so never pauses for a collection. */
const ORDINARY = CROWD / 4;
const GROWTH_BYTES = 64 * 1024 * 1024;

export type Release = 'wait' | 'collect' | 'trim';

/**
 * What to do at each check, given the connections open and the process's resident bytes: `collect`, then
 * `trim` at the next check. A crowd is given back once it has thinned to a quarter of the most open at once for
 * two checks in a row, if the process grew by GROWTH_BYTES since it last gave memory back. A crowd still open
 * then (one closing over seconds on a loaded machine) is given back again each time what was open at the last
 * release thins to a quarter, without asking for growth: what those connections held is freed inside the
 * process and never grows it. The crowd is over once memory is given back with no more than ordinary traffic
 * open; each further release needs four times fewer connections, so a crowd pauses the process a few times.
 */
export function crowdReleases(): (seen: { open: number; rss: number }) => Release {
  let baseline: number | undefined;
  let peak = 0;
  let thinChecks = 0;
  let trimNext = false;
  let trimmed = false;
  /** Connections still open at this crowd's last release: the next waits for a quarter of them. */
  let stillOpen: number | undefined;
  return ({ open, rss }) => {
    if (trimNext) {
      trimNext = false;
      trimmed = true;
      return 'trim';
    }
    // The first check after a trim sees what the release left: the floor growth is counted from.
    if (trimmed || baseline === undefined) baseline = rss;
    trimmed = false;
    peak = Math.max(peak, open);
    // A crowd that grows again after a release is waited for from its new height.
    if (stillOpen !== undefined) stillOpen = Math.max(stillOpen, open);
    thinChecks = peak >= CROWD && open < (stillOpen ?? peak) / 4 ? thinChecks + 1 : 0;
    if (thinChecks < 2) return 'wait';
    if (stillOpen === undefined && rss - baseline < GROWTH_BYTES) return 'wait';
    thinChecks = 0;
    trimNext = true;
    if (open <= ORDINARY) {
      peak = 0;
      stillOpen = undefined;
    } else {
      stillOpen = open;
    }
    return 'collect';
  };
}

export function releaseMemoryAfterCrowds(openConnections: () => number): { stop(): void } {
  const gc = (globalThis as { gc?: (options: object) => void }).gc;
  const trim = mallocTrim();
  const next = crowdReleases();
  const timer = setInterval(() => {
    const release = next({ open: openConnections(), rss: Deno.memoryUsage().rss });
    if (release === 'collect') gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    if (release === 'trim') trim?.();
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
