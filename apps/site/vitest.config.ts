import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

// Files run one at a time (the base's fileParallelism: false), on the base's timeouts (180 s; a
// test of several builds sets its own). Builds at once are safe (scripts/astro-build.ts: each has
// its own working directory).
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'] },
  }),
);
