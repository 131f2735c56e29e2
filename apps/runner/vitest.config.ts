import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

/**
 * The files that take the machine's shared state for their duration: the local MariaDB's process
 * (moved into cgroups, its buffer pool resized), cgroups and I/O throttles, a tmpfs filled to the
 * last byte, the disk probe's figures (fio), a TCP proxy cutting the shared PostgreSQL's
 * connections. They run one at a time in the `host` project; every other file, one at a time, in
 * `main`. `npm test` at the root runs the two as two turbo tasks at once (`test`: main,
 * `test:host`: host; ≈ 210 s and 235 s of tests on a quiet machine), so the runner's suite takes
 * the longer of the two instead of their sum; `npx vitest run` here runs both, one after the other
 * (vitest gives projects of one group one pool).
 */
const HOST = [
  'src/commands/like-article-run.test.ts',
  'src/commands/envelope-run.test.ts',
  'src/commands/killed-throttle.test.ts',
  'src/probe/envelope.test.ts',
  'src/probe/measure.test.ts',
  'src/full-disk.test.ts',
  'src/server-faults.test.ts',
  'src/server-faults-mariadb.test.ts',
  'src/advise/advise-mariadb.test.ts',
  'src/engine/innodb-compression.test.ts',
  'src/engine/leftovers.test.ts',
  'src/engines/mysql/driver.test.ts',
  'src/engines/index.test.ts',
  'src/workload/insert-stream.test.ts',
];

// Tests talk to a real PostgreSQL (TEST_PG_URL, default 127.0.0.1:5432) and MariaDB and build
// fixtures (the shared base's timeouts). The CLI the tests start is bundled once per run
// (src/test-support/global-setup.ts). `main` runs its files in one worker without isolation
// (`isolate: false`): none mocks modules, stubs globals or changes process.env or the working
// directory, and reusing the worker's loaded modules cut its run 209 s → 195 s and the vitest
// processes' CPU 101 s → 85 s (quiet, one run each, side by side).
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: {
      globalSetup: ['src/test-support/global-setup.ts'],
      projects: [
        { extends: true, test: { name: 'host', include: HOST } },
        { extends: true, test: { name: 'main', include: ['src/**/*.test.ts'], exclude: HOST, isolate: false } },
      ],
    },
  }),
);
