import { defineConfig } from 'vitest/config';

// Tests talk to a real PostgreSQL (TEST_PG_URL, default 127.0.0.1:5432) and build fixtures,
// so they get generous timeouts and run files one at a time on small machines.
export default defineConfig({
  test: {
    testTimeout: 180_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
