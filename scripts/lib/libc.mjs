// Where the system's C library may be, for the local server's one use of it (`release-memory.ts`): Debian's
// multiarch paths on Linux with glibc. The launcher (`stack.mjs`) allows FFI for the one that exists and
// nothing else; the server opens the one it was allowed. Plain JavaScript for both Node and Deno.

const runtime = globalThis.Deno
  ? { os: globalThis.Deno.build.os, arch: globalThis.Deno.build.arch }
  : { os: globalThis.process.platform, arch: { x64: 'x86_64', arm64: 'aarch64' }[globalThis.process.arch] };

/** glibc's shared library's possible paths on this machine's OS and architecture (none elsewhere). */
export const LIBC_CANDIDATES = runtime.os === 'linux' && runtime.arch
  ? [`/lib/${runtime.arch}-linux-gnu/libc.so.6`, `/usr/lib/${runtime.arch}-linux-gnu/libc.so.6`]
  : [];
