/**
 * `tunelab run KEY --server MAJOR --like-article` as a user runs it: the choice is
 * printed in one line, the run is an ordinary run with the chosen --param, --envelope and --set
 * (recorded as such, with a `like-article` note), and its class says "emulated". Every input it
 * cannot take is a usage error before anything is measured, installed or started.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hardwareClassOf, isEmulatedClass, storageTierOf, type RunSubmission } from '@tunelab/contracts';
import { EXIT } from '../exit-codes.ts';
import { runTunelab } from '../test-support/cli.ts';
import { TEST_MYSQL_URL } from '../test-support/mysql.ts';
import { TEST_PG_URL } from '../test-support/pg.ts';
import {
  cgroupV1,
  askMariadb,
  envelopeDirs,
  localMariadbProcess,
  newEnvelopeDirs,
  envelopeTestHome,
  hasPostgresUser,
  isRoot,
  runTunelabAsPostgres,
} from '../test-support/envelope.ts';

const home = await envelopeTestHome('tunelab-like-article-');
const { tmp } = home;
// The tier this machine's disk is taken to have is set, not measured (TUNELAB_STORAGE_TIER): the
// throttle --like-article chooses then never depends on how fast the disk is at the moment (a
// loaded disk once measured HDD-like and the run chose no throttle). The probe inside the envelope
// still measures. No probe history is read or written (it would be the temp dir's).
const env = {
  ...home.env,
  TUNELAB_STORAGE_TIER: 'ssd-like',
  TUNELAB_PROBE_HISTORY: path.join(tmp, 'probe-history.json'),
};
const root = isRoot;
const v1 = cgroupV1;
const MIB = 1024 ** 2;

describe('tunelab run --like-article', () => {
  // The article's HDD machine at the smallest size that keeps its ratios (48 MB: max_wal_size's
  // floor of 32 MB): the memory limit, the settings and a read throttle, all in one run.
  // Skipped only where cgroups cannot be used (not root, no cgroup v1 memory/blkio); CI runs as root with v1, so it runs there.
  it.skipIf(!root || !v1)(
    'runs like the article’s server-2: the chosen scale, envelope and settings are the run’s, with a like-article note, classed "emulated"',
    async () => {
      const before = envelopeDirs();
      const out = path.join(tmp, 'run.json');
      const r = await runTunelab(
        [
          'run',
          'vacuum-index-cleanup',
          '--server',
          '17',
          '--like-article',
          '--like-article-machine',
          'server-2',
          '--like-article-size',
          '48MB',
          '--repetitions',
          '1',
          '--cluster-dir',
          tmp,
          '--out',
          out,
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(EXIT.OK);
      // The probe inside the envelope measured the article's tier: no sentence after the run says otherwise.
      expect(r.stderr).not.toMatch(/does not reproduce the article's disk/);
      // One line before the run says what was chosen and what is not reproduced.
      expect(r.stderr).toMatch(
        /tunelab: like the article's server-2 \(8 cores, 32 GB RAM, HDD\): reproduces data:memory 0.375 \(a 48 MB table, rows=100,865, in a 128 MB memory limit\), shared_buffers:data 0.667 \(shared_buffers=32MB\), maintenance_work_mem:data 0.133 \(maintenance_work_mem=6552kB\), max_wal_size:data 0.667 \(max_wal_size=32MB\), disk tier HDD-like \(this disk measures SSD-like, throttled to 150 reads\/s, 150 writes\/s\); the article's settings autovacuum=off, synchronous_commit=off, wal_compression=off, max_parallel_maintenance_workers=4; not reproduced: \d+ cores \(this machine has \d+\), absolute size 12 GB \(here 48 MB\)\n/,
      );
      const { submission } = JSON.parse(await readFile(out, 'utf8')) as { submission: RunSubmission };
      // The run is an ordinary one with the chosen --param, --envelope and --set.
      expect(submission.params['rows']).toBe(100_865);
      expect(submission.hardware.envelope).toMatchObject({ memoryBytes: 128 * MIB, readIops: 150, writeIops: 150 });
      expect(submission.options?.serverSettings).toEqual({
        shared_buffers: '32MB',
        maintenance_work_mem: '6552kB',
        max_wal_size: '32MB',
        autovacuum: 'off',
        synchronous_commit: 'off',
        wal_compression: 'off',
        max_parallel_maintenance_workers: '4',
      });
      expect(submission.database.settings['shared_buffers']).toBe('32MB');
      const note = submission.notes.find((n) => n.kind === 'like-article');
      expect(note?.text).toMatch(/^emulated like the article's server-2 .*; not reproduced: .*absolute size 12 GB/);
      expect(note?.text).toMatch(/; this disk: .* not measured: SSD-like set by TUNELAB_STORAGE_TIER$/);
      // The table it built is the size asked for (bytes_per_unit of scenario.yaml), within 5 %.
      const size = submission.samples.find((s) => s.metric === 'table_size_before')!.value;
      expect(Math.abs(size / (48 * MIB) - 1)).toBeLessThan(0.05);
      // The probe inside the throttle: HDD-like, as the article's disk.
      expect(storageTierOf(submission.hardware.measured!)).toBe('hdd-like');
      const cls = hardwareClassOf(submission.hardware);
      expect(cls).toMatch(/^\d+ cores \/ 128 MB of \d+ GB \/ HDD-like, emulated$/);
      expect(isEmulatedClass(cls)).toBe(true);
      expect(newEnvelopeDirs(before)).toEqual([]);
    },
    300_000,
  );

  // innodb-compression-insert's article states no machine and no data:memory: the buffer pool is
  // scaled as a parameter, and the user's local MariaDB is moved into I/O limits for the run.
  // Skipped only where cgroups cannot be used (not root, no cgroup v1 blkio); CI runs as root with v1, so it runs there.
  it.skipIf(!root || !v1)(
    'runs innodb-compression-insert like its article on a local MariaDB: rows and buffer pool from the size, I/O limits only, back after',
    async () => {
      const { cgroups } = await localMariadbProcess();
      const [cgroupsBefore, poolBefore, dirsBefore] = [
        await cgroups(),
        askMariadb('SELECT @@innodb_buffer_pool_size'),
        envelopeDirs(),
      ];
      const out = path.join(tmp, 'innodb-run.json');
      // The smallest size that keeps a 5 MB buffer pool; a short time limit and two connections of
      // the user's replace the article's (the run then says it did not outgrow its pool, if so).
      const r = await runTunelab(
        [
          'run',
          'innodb-compression-insert',
          '--target',
          TEST_MYSQL_URL,
          '--like-article',
          // The tests' MariaDB serves only the tests: throttling its process for the run is accepted.
          '--throttle-target',
          '--like-article-size',
          '12MB',
          '--param',
          'max_seconds=3',
          '--param',
          'threads=2',
          '--repetitions',
          '1',
          '--out',
          out,
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(EXIT.OK);
      expect(r.stderr).toMatch(
        /tunelab: like the article's machine \(a single disk, 2012; cores and memory not stated\): reproduces the data \(a 12 MB table, rows=78,643\), buffer_pool_mb:data 0.43 \(buffer_pool_mb=5\), disk tier HDD-like \(this disk measures SSD-like, throttled to 150 reads\/s, 150 writes\/s\); not reproduced: cores and memory \(the article does not state them\), absolute size 9.3 GB \(here 12 MB\)\n/,
      );
      const { submission } = JSON.parse(await readFile(out, 'utf8')) as { submission: RunSubmission };
      expect(submission.params).toMatchObject({ rows: 78_643, buffer_pool_mb: 5, threads: 2, max_seconds: 3 });
      expect(submission.hardware.envelope).toMatchObject({ readIops: 150, writeIops: 150, mechanism: 'cgroup-v1' });
      expect(submission.hardware.envelope).not.toHaveProperty('memoryBytes');
      expect(submission.notes.find((n) => n.kind === 'like-article')?.text).toMatch(
        /^emulated like the article's machine \(a single disk, 2012; cores and memory not stated\)/,
      );
      expect(storageTierOf(submission.hardware.measured!)).toBe('hdd-like');
      expect(hardwareClassOf(submission.hardware)).toMatch(/HDD-like, emulated$/);
      // The server is back in its own cgroups with its own buffer pool; no envelope left.
      expect(await cgroups()).toBe(cgroupsBefore);
      expect(askMariadb('SELECT @@innodb_buffer_pool_size')).toBe(poolBefore);
      expect(newEnvelopeDirs(dirsBefore)).toEqual([]);
    },
    240_000,
  );

  // Every input --like-article cannot take: exit 2 with a sentence, before the disk is measured
  // and before a server is installed or started; no run file.
  it.each([
    [
      'a scenario without article conditions',
      ['vacuum-full-rewrite', '--server', '17', '--like-article'],
      /scenario vacuum-full-rewrite states no article conditions \(article_conditions in its scenario.yaml\)/,
    ],
    [
      'no managed server',
      ['vacuum-index-cleanup', '--like-article'],
      /--like-article runs the article's conditions on a server the runner starts inside a cgroup: give --server MAJOR/,
    ],
    [
      'a server of the user’s',
      ['vacuum-index-cleanup', '--target', TEST_PG_URL, '--like-article'],
      /give --server MAJOR \([\d, ]+\) instead of --target/,
    ],
    [
      'an explicit envelope',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--envelope', 'memory=1GB'],
      /--like-article cannot be combined with --envelope \(--like-article chooses the envelope\)/,
    ],
    [
      'the scale parameter',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--param', 'rows=5000'],
      /--like-article cannot be combined with --param rows/,
    ],
    [
      'a setting it scales',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--set', 'shared_buffers=1GB'],
      /--like-article cannot be combined with --set shared_buffers \(--like-article scales it with the data\)/,
    ],
    [
      'a setting of the article’s',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--set', 'autovacuum=on'],
      /--set autovacuum \(--like-article sets the article's value, off\)/,
    ],
    [
      'the published scale',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--published-scale'],
      /--like-article cannot be combined with --published-scale/,
    ],
    [
      'a scale sweep',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--scale-sweep'],
      /--scale-sweep measures the scale points of scenario.yaml; --like-article chooses one scale/,
    ],
    [
      'a size too small for the ratios',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--like-article-size', '10MB'],
      /--like-article-size 10MB: too small to keep the article's ratios .* give at least 48 MB/,
    ],
    [
      'a size without its unit',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--like-article-size', '256'],
      /--like-article-size 256: expected a size with its unit/,
    ],
    [
      'a machine the scenario does not list',
      ['vacuum-index-cleanup', '--server', '17', '--like-article', '--like-article-machine', 'server-3'],
      /--like-article-machine server-3: vacuum-index-cleanup states the conditions of server-1, server-2/,
    ],
    [
      'innodb-compression-insert without a server',
      ['innodb-compression-insert', '--like-article'],
      /--like-article runs the article's conditions on a server inside a cgroup: give --target with a local server\n/,
    ],
    [
      'a parameter it scales',
      ['innodb-compression-insert', '--target', TEST_MYSQL_URL, '--like-article', '--param', 'buffer_pool_mb=64'],
      /--like-article cannot be combined with --param buffer_pool_mb \(--like-article scales it with the data\)/,
    ],
    [
      'a size without --like-article',
      ['vacuum-index-cleanup', '--server', '17', '--like-article-size', '64MB'],
      /--like-article-size only applies with --like-article/,
    ],
  ])('refuses %s with a usage error, measuring nothing', async (_name, args, message) => {
    const r = await runTunelab(['run', ...args, '--cluster-dir', tmp], env);
    expect(r.code, r.stderr).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/measuring the disk/);
    expect(existsSync(env.TUNELAB_RUNS_DIR) ? await readdir(env.TUNELAB_RUNS_DIR) : []).toEqual([]);
  });

  it('an unknown TUNELAB_STORAGE_TIER is exit 2 with the values it takes, before anything is measured', async () => {
    const r = await runTunelab(
      ['run', 'vacuum-index-cleanup', '--server', '17', '--like-article', '--cluster-dir', tmp],
      {
        ...env,
        TUNELAB_STORAGE_TIER: 'fast',
      },
    );
    expect(r.code, r.stderr).toBe(EXIT.USAGE);
    expect(r.stderr).toBe(
      'tunelab: invalid environment:\n  TUNELAB_STORAGE_TIER: must be one of nvme-like, ssd-like, network-ssd, hdd-like (got "fast")\n',
    );
  });

  // Not root: the envelope cannot be made, so nothing is measured (exit 7, as --envelope).
  const postgresUser = hasPostgresUser;
  // Skipped only without root (it runs the CLI as the `postgres` OS user) or without that user; CI has both.
  it.skipIf(!root || !postgresUser)(
    'exits 7 without root, before measuring the disk or installing anything',
    async () => {
      await runTunelabAsPostgres(
        ['run', 'vacuum-index-cleanup', '--server', '17', '--like-article'],
        async (r, home) => {
          expect(r.status, r.stderr).toBe(EXIT.ENVELOPE_UNAVAILABLE);
          expect(r.stderr).toMatch(/--like-article runs the server inside an envelope, which .* needs root/);
          expect(r.stderr).not.toMatch(/measuring the disk/);
          expect((await readdir(home)).filter((f) => /^\d+$/.test(f))).toEqual([]);
        },
      );
    },
    150_000,
  );
});
