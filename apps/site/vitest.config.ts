import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

// Files run one at a time (the base's fileParallelism: false); a build takes longer than the base
// timeouts. Builds at once are safe (scripts/astro-build.ts: each has its own working directory).
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
  }),
);
