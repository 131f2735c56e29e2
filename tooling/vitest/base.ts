/**
 * The vitest settings every workspace shares (after create-t3-turbo's `tooling/`): tests talk to
 * real PostgreSQL/MariaDB servers and real processes, so they get generous timeouts and run one
 * file at a time on small machines. A workspace's `vitest.config.ts` adds its own with
 * `mergeConfig(baseConfig, defineConfig({ test: { … } }))`.
 *
 * A timeout bounds a hang, not speed: tests wait on conditions. 180 s, because `npm run test:busy`
 * (four busy loops beside the suite's four lanes: load 9–13 on two cores) makes a test up to 5–6
 * times slower than on a quiet machine, and the longest tests on this default take 10–12 s quiet
 * (the API's admin CLI test of five processes: 59.8 s there, against the 60 s this was).
 */
import { defineConfig } from 'vitest/config';

export const baseConfig = defineConfig({
  test: { testTimeout: 180_000, hookTimeout: 180_000, fileParallelism: false },
});
