import { defineConfig } from 'vitest/config';

// The fault soak alone (scripts/soak.ts): it starts its own control plane.
export default defineConfig({
  test: {
    include: ['test/soak/soak.run.ts'],
    setupFiles: ['test/support/temp-dirs.ts'],
    hookTimeout: 600_000,
  },
});
