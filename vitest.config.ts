import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The stack, and the store console's build (served by that stack at /console/, driven by test/browser).
    globalSetup: ['test/support/global-setup.ts'],
    // The stack under test is shared by every file. A quarter of a 2-core machine sat idle with two
    // workers, while files waited on timers, sockets or a stopped server; a third fills it (docs/performance.md, "The suite").
    maxWorkers: 3,
    // A worker runs its files one after another in one process: the suite's own modules (clients,
    // tokens, postgres) load once per worker, not once per file, which was 20 s of a 3-minute run. No
    // test changes a global, so nothing leaks from one file to the next.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // supabase-js builds a realtime client that needs a global WebSocket, which Node 20 has only behind
    // a flag (Node 22 and later have it by default).
    execArgv: typeof WebSocket === 'undefined' ? ['--experimental-websocket'] : [],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
