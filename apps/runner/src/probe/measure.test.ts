import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  hardwareClassOf,
  MeasuredHardware,
  ProbeReport,
  RunSubmission,
  storageTierOf,
  StorageTier,
} from '@tunelab/contracts';
import { cleanupRun } from '../engine/run-scenario.ts';
import { postgresDriver } from '../engines/postgresql/driver.ts';
import { EXIT } from '../exit-codes.ts';
import { runTunelab } from '../test-support/cli.ts';
import { TEST_PG_URL } from '../test-support/pg.ts';
import { CPU_WORKLOAD_CHECKSUM, cpuWorkloadIteration } from './cpu-score.ts';
import { fioVersion } from './disk-fio.ts';
import { probeHardware } from './hardware.ts';
import { measureHardware, probeDirectoryFor } from './measure.ts';

const tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-probe-test-'));
const runIds: string[] = [];
afterAll(async () => {
  for (const id of runIds) await cleanupRun(postgresDriver, TEST_PG_URL, id);
  await rm(tmp, { recursive: true, force: true });
});
const hasFio = (await fioVersion()) !== null;
// `tunelab probe` keeps a probe history: this test's, in its temp dir, never the user's ~/.tunelab.
const probeEnv = { TUNELAB_PROBE_HISTORY: path.join(tmp, 'probe-history.json') };

async function freshDir(name: string): Promise<string> {
  const dir = path.join(tmp, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  return dir;
}

function expectPositiveFigures(m: MeasuredHardware) {
  for (const k of ['fsyncP50Us', 'fsyncP99Us', 'readIopsQd1', 'readIopsQd16', 'seqWriteMBps', 'cpuScore'] as const)
    expect(m[k], k).toBeGreaterThan(0);
  expect(m.fsyncP99Us!).toBeGreaterThanOrEqual(m.fsyncP50Us!);
  expect(m.fsyncSamples).toBeGreaterThan(0);
  expect(StorageTier.safeParse(storageTierOf(m)).success).toBe(true);
}

describe('measureHardware on this machine', () => {
  it("the runner's own probe gives positive figures and a tier, and removes its file", async () => {
    const dir = await freshDir('node');
    const m = await measureHardware({ dir, tool: 'node' });
    expect(m.diskTool).toBe('tunelab-node');
    expectPositiveFigures(m);
    expect(await readdir(dir)).toEqual([]);
  });

  // Skipped where fio is not installed (a fresh machine may lack it: the fallback probe above runs everywhere).
  it.skipIf(!hasFio)('fio gives positive figures and a tier, and removes its file', async () => {
    const dir = await freshDir('fio');
    const m = await measureHardware({ dir, tool: 'fio' });
    expect(m.diskTool).toMatch(/^fio-\d/);
    expectPositiveFigures(m);
    expect(m.durationMs).toBeLessThan(30_000); // ≤ 10 s unloaded; a loaded shared machine stretches it
    expect(await readdir(dir)).toEqual([]);
  });

  it('the CPU workload is the fixed one: same checksum on every machine', () => {
    expect(cpuWorkloadIteration()).toBe(CPU_WORKLOAD_CHECKSUM);
  });

  it('writes next to a data directory, not inside it, when it can', async () => {
    const data = await freshDir('pgdata');
    expect(probeDirectoryFor(data)).toBe(tmp);
    expect(probeDirectoryFor(path.join(tmp, 'no-such-dir'))).toBeNull();
  });

  it('probeHardware measures the data directory: the class names a tier, not "unknown disk"', async () => {
    const data = await freshDir('pgdata2');
    const { spec, warnings } = await probeHardware({ dataDirectory: data });
    expect(spec.measured).toBeDefined();
    expect(warnings.join('\n')).not.toMatch(/pass --storage/);
    expect(hardwareClassOf(spec)).not.toMatch(/unknown disk/);
    const declared = await probeHardware({ dataDirectory: data, storageOverride: 'hdd', measure: false });
    expect(declared.spec.storage).toMatchObject({ kind: 'hdd', declared: true });
    expect(hardwareClassOf(declared.spec)).toMatch(/\/ HDD$/);
  });
});

describe('tunelab probe', () => {
  it('prints the table, or JSON with the tier', async () => {
    const dir = await freshDir('cli');
    const table = await runTunelab(['probe', '--dir', dir], probeEnv);
    expect(table.code).toBe(EXIT.OK);
    expect(table.stdout).toMatch(/^storage tier +(NVMe-like|SSD-like|network SSD|HDD-like)$/m);
    expect(table.stdout).toMatch(/^fsync 8 kB, p50 +[\d.]+ ms$/m);
    const json = await runTunelab(['probe', '--dir', dir, '--json', '--tool', 'node'], probeEnv);
    expect(json.code).toBe(EXIT.OK);
    const report = ProbeReport.parse(JSON.parse(json.stdout));
    const { directory, tier, machine, ...figures } = report;
    expect(directory).toBe(dir);
    const m = MeasuredHardware.parse(figures);
    expect(m.diskTool).toBe('tunelab-node');
    // The second probe of this directory: the stable tier, which moved to this probe's or kept the first's.
    expect(StorageTier.safeParse(tier).success).toBe(true);
    expect(m.windows).toMatchObject({ perFigure: 5 });
    expect(table.stdout).toMatch(/^windows +5 per figure, best quartile kept; measured again: /m);
    // The machine, so that the JSON alone is a "hardware like mine" query (POST /v1/similar).
    const { spec } = await probeHardware({ dataDirectory: dir, measure: false });
    expect(machine).toEqual({
      physicalCores: spec.physicalCores,
      memoryBytes: spec.memoryBytes,
      storageKind: spec.storage.kind,
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('a bad --dir gets a sentence and exit 2, and writes nothing', async () => {
    const missing = await runTunelab(['probe', '--dir', path.join(tmp, 'missing')], {});
    expect(missing.code).toBe(EXIT.USAGE);
    expect(missing.stderr).toBe(`tunelab: cannot probe: ${path.join(tmp, 'missing')} does not exist\n`);
    const file = path.join(tmp, 'a-file');
    await writeFile(file, 'x');
    const notDir = await runTunelab(['probe', '--dir', file], {});
    expect(notDir.code).toBe(EXIT.USAGE);
    expect(notDir.stderr).toBe(`tunelab: cannot probe: ${file} is not a directory\n`);
    const both = await runTunelab(['probe', '--dir', tmp, '--target', TEST_PG_URL], {});
    expect(both.code).toBe(EXIT.USAGE);
    expect(both.stderr).toMatch(/give --dir or --target, not both/);
    const badTool = await runTunelab(['probe', '--dir', tmp, '--tool', 'dd'], {});
    expect(badTool.code).toBe(EXIT.USAGE);
  });

  it("a run's submission carries the probe of the server's data directory", async () => {
    const runId = crypto.randomUUID();
    runIds.push(runId);
    const out = path.join(tmp, 'run.json');
    const r = await runTunelab(
      ['run', 'vacuum-full-rewrite', '--target', TEST_PG_URL, '--param', 'rows=1000', '--repetitions', '1'].concat([
        '--out',
        out,
        '--run-id',
        runId,
      ]),
      // Measured by this run itself, not reused from an earlier run of the test suite.
      {
        TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'),
        TUNELAB_RUNS_DIR: path.join(tmp, 'runs'),
        TUNELAB_TEST_PROBE_REUSE: '',
      },
    );
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const submission = RunSubmission.parse(JSON.parse(await readFile(out, 'utf8')).submission);
    expectPositiveFigures(submission.hardware.measured!);
    expect(r.stderr).not.toMatch(/pass --storage/);
  });
});
