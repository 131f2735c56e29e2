import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

// Site builds share Astro's cache dirs in apps/site, so files run one at a time (the base's
// fileParallelism: false), and a build takes longer than the base timeouts.
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
  }),
);
