import { defineConfig } from 'vitest/config';

// The real-Knative fault soak alone (scripts/soak.ts): it starts its own
// control plane, unless $CASCADE_KUBECONFIG answers, and joins the real node.
export default defineConfig({
  test: {
    include: ['test/soak/knative-soak.run.ts'],
    setupFiles: ['test/support/temp-dirs.ts'],
    hookTimeout: 1_800_000,
  },
});
