import { configDefaults, defineConfig } from 'vitest/config';

// Two projects: `unit` is pure logic with no I/O (tests beside the code);
// `cluster` runs against the real local control plane started by the global
// set-up (tests under test/; the unit tests of its helpers, test/support/,
// are pure and belong to `unit`).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'functions/**/*.test.ts',
            'cli/**/*.test.ts',
            'shared/**/*.test.ts',
            'scripts/**/*.test.ts',
            'bench/**/*.test.ts',
            'local/**/*.test.ts',
            'test/support/**/*.test.ts',
          ],
        },
      },
      {
        test: {
          name: 'cluster',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/support/**'],
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/support/temp-dirs.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
