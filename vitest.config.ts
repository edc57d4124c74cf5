import { configDefaults, defineConfig } from 'vitest/config';
import { LaterBuildsLast } from './scripts/test-run/sequencer.ts';

// Three projects: `unit` is pure logic with no I/O (tests beside the code);
// `cluster` and `real-node` run against a real local control plane that the
// global set-up starts (tests under test/; the unit tests of its helpers,
// test/support/, are pure and belong to `unit`). `real-node` holds the files
// that use the machine's one real node or install Knative, whose CRDs and
// webhooks are the whole cluster's. Each project runs one file at a time.
// `npm test` runs `real-node` in a vitest process of its own, beside the
// other two, each with its own control plane (scripts/test-run/).
// test/support/projects.test.ts checks that the files that need the real
// node or Knative are in REAL_NODE_FILES; scripts/test-run/sequencer.ts orders
// the files.
export const REAL_NODE_FILES = [
  'test/knative-*.test.ts',
  'test/real-node-*.test.ts',
  'test/npm-start.test.ts',
  'test/release-install.test.ts',
];

const clusterProject = {
  globalSetup: ['test/global-setup.ts'],
  setupFiles: ['test/support/temp-dirs.ts'],
  testTimeout: 120_000,
  hookTimeout: 600_000,
  fileParallelism: false,
};

export default defineConfig({
  test: {
    sequence: { sequencer: LaterBuildsLast },
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
          exclude: [...configDefaults.exclude, 'test/support/**', ...REAL_NODE_FILES],
          ...clusterProject,
        },
      },
      {
        test: { name: 'real-node', include: REAL_NODE_FILES, ...clusterProject },
      },
    ],
  },
});
