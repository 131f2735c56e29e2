import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

// Tests talk to a real PostgreSQL (TEST_PG_URL, default 127.0.0.1:5432) and build fixtures:
// longer tests than the shared base allows. The CLI the tests start is bundled once per run
// (src/test-support/global-setup.ts).
export default mergeConfig(
  baseConfig,
  defineConfig({ test: { testTimeout: 180_000, globalSetup: ['src/test-support/global-setup.ts'] } }),
);
