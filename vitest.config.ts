import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/stack.ts'],
    // The stack under test is shared by every file; two workers keep a 2-core machine busy without
    // starving PostgreSQL and Deno.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
