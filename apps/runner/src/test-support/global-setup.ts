/**
 * vitest globalSetup: builds the CLI bundle the tests start (bin/tunelab.mjs with everything it
 * imports, `bundleEntry` of @tunelab/test-support) once per test run,
 * below apps/runner/node_modules/.cache (so its bare imports resolve as the sources' do), one file
 * per vitest process and project so concurrent runs do not overwrite each other's; removed at the end.
 * Also names the file where runs share the disk probe's figures (TUNELAB_TEST_PROBE_REUSE, see
 * probe/hardware.ts): the first run on a directory measures, later runs of this test run reuse.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { bundleEntry } from '@tunelab/test-support';

const BIN = fileURLToPath(new URL('../../bin/tunelab.mjs', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file the tests run as `node FILE …` for the `tunelab` CLI ('' = bin/tunelab.mjs through tsx). */
    tunelabCli: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = fileURLToPath(new URL('../../node_modules/.cache/tunelab-test-cli/', import.meta.url));
  await mkdir(dir, { recursive: true });
  // Workers and the CLI processes they start inherit it.
  const reuse = path.join(dir, `probe-${process.pid}.json`);
  process.env.TUNELAB_TEST_PROBE_REUSE ??= reuse;
  // The probe's tier history (probe/tier-history.ts) in the cache, never the user's ~/.tunelab.
  process.env.TUNELAB_PROBE_HISTORY ??= path.join(dir, `probe-history-${process.pid}.json`);
  // One bundle per vitest process and project (vitest runs each project's setup).
  const file = path.join(dir, `tunelab-${process.pid}-${project.name || 'runner'}.mjs`);
  if (process.env.TUNELAB_TEST_CLI === 'tsx') project.provide('tunelabCli', '');
  else {
    // Packages bundled too: the CLI starts ~60 times a run, each loading one file (3.06 s → 0.60 s
    // of CPU for `tunelab --help`). import.meta.url keeps each source's URL, so files found
    // relative to one (scenarios/, the version's package.json) are the same as under tsx.
    await bundleEntry(BIN, file, { packages: 'bundle' });
    project.provide('tunelabCli', file);
  }
  return async () => {
    await rm(file, { force: true });
    await rm(reuse, { force: true });
    await rm(path.join(dir, `probe-history-${process.pid}.json`), { force: true });
  };
}
