import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

/**
 * The fleet test (real API and agent processes on both results databases, a managed PostgreSQL 17)
 * is as long as every other end-to-end file together: it is its own project, `fleet`, and
 * `npm test` at the root runs it as its own turbo task (`test:fleet`) beside `test` (the `main`
 * project). `npx vitest run` here runs both, one after the other.
 */
const FLEET = ['fleet.test.ts'];

export default mergeConfig(
  baseConfig,
  defineConfig({
    test: {
      projects: [
        { extends: true, test: { name: 'fleet', include: FLEET } },
        { extends: true, test: { name: 'main', include: ['*.test.ts'], exclude: FLEET } },
      ],
    },
  }),
);
