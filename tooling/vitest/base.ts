/**
 * The vitest settings every workspace shares (after create-t3-turbo's `tooling/`): tests talk to
 * real PostgreSQL/MariaDB servers and real processes, so they get generous timeouts and run one
 * file at a time on small machines. A workspace's `vitest.config.ts` adds its own with
 * `mergeConfig(baseConfig, defineConfig({ test: { … } }))`.
 */
import { defineConfig } from 'vitest/config';

export const baseConfig = defineConfig({
  test: { testTimeout: 60_000, hookTimeout: 60_000, fileParallelism: false },
});
