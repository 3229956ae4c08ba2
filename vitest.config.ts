import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{runtime,drivers,models,scenes,sync,scripts,test}/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Native modules (better-sqlite3, OpenCV) and child processes: two workers on a 2-core machine.
    maxWorkers: 2,
  },
});
