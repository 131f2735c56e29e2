/**
 * `tunelab run KEY --server MAJOR --envelope …` as a user runs it: the throwaway
 * server runs inside a cgroup, the probe inside it reports the envelope's tier, the run records the
 * envelope and its class says "emulated"; bad limits and a server of the user's are usage errors,
 * a runner that cannot use cgroups exits 7 — none of them measures or installs anything.
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
  envelopeDirs,
  localMariadbProcess,
  newEnvelopeDirs,
  envelopeTestHome,
  hasPostgresUser,
  isRoot,
  runTunelabAsPostgres,
} from '../test-support/envelope.ts';

const { tmp, env } = await envelopeTestHome('tunelab-envelope-run-');
const root = isRoot;
const v1 = cgroupV1;
const tiny = ['--param', 'rows=2000', '--repetitions', '1', '--cluster-dir', tmp];

describe('tunelab run --envelope', () => {
  // Skipped only where cgroups cannot be used (not root, no cgroup v1 memory/blkio); CI runs as root with v1, so it runs there.
  it.skipIf(!root || !v1)(
    'runs the managed server inside the envelope: the run records it, probes the envelope’s tier and is classed "emulated"',
    async () => {
      const before = envelopeDirs();
      const out = path.join(tmp, 'run.json');
      const r = await runTunelab(
        [
          'run',
          'vacuum-index-cleanup',
          '--server',
          '17',
          '--envelope',
          'memory=512MB,read-iops=150',
          ...tiny,
          '--out',
          out,
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(EXIT.OK);
      expect(r.stderr).toMatch(/inside an envelope: memory 512MB, reads 150 IOPS with cgroup v1/);
      const { submission } = JSON.parse(await readFile(out, 'utf8')) as { submission: RunSubmission };
      expect(submission.hardware.envelope).toMatchObject({ memoryBytes: 512 * 1024 ** 2, readIops: 150 });
      // The probe ran inside the throttle: about 150 reads/s, HDD-like, whatever the disk outside.
      const m = submission.hardware.measured!;
      expect(m.readIopsQd1).toBeLessThan(225);
      expect(storageTierOf(m)).toBe('hdd-like');
      const cls = hardwareClassOf(submission.hardware);
      expect(cls).toMatch(/^\d+ cores \/ 512 MB of \d+ GB \/ HDD-like, emulated$/);
      expect(isEmulatedClass(cls)).toBe(true);
      expect(submission.notes.map((n) => n.kind)).toContain('envelope');
      // The cgroups are gone with the server.
      expect(newEnvelopeDirs(before)).toEqual([]);
    },
    240_000,
  );

  it.each([
    [['--envelope', 'memory=1'], /--envelope memory=1: expected a size of at least 64MB/],
    [['--envelope', 'cpus=2'], /--envelope: unknown limit "cpus"/],
    [['--envelope', 'read-iops=-3'], /--envelope read-iops=-3: expected a positive number/],
  ])('refuses bad limits %j with a usage error, before anything runs', async (args, message) => {
    const r = await runTunelab(['run', 'vacuum-index-cleanup', '--server', '17', ...args, ...tiny], env);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(message);
    expect(existsSync(env.TUNELAB_RUNS_DIR) ? await readdir(env.TUNELAB_RUNS_DIR) : []).toEqual([]);
  });

  it('refuses an envelope around a server of the user’s (--target): the runner does not put it in a cgroup', async () => {
    const r = await runTunelab(
      ['run', 'vacuum-index-cleanup', '--target', TEST_PG_URL, '--envelope', 'read-iops=150', '--param', 'rows=2000'],
      env,
    );
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(/--envelope limits a server the runner starts and stops/);
  });

  // Skipped only where cgroups cannot be used (not root, no cgroup v1 memory/blkio); CI runs as root with v1, so it runs there.
  it.skipIf(!root || !v1)(
    'moves a local MariaDB server into an I/O envelope for the run and back to its own cgroups after it',
    async () => {
      const { pid, cgroups } = await localMariadbProcess();
      const before = await cgroups();
      const dirsBefore = envelopeDirs();
      const out = path.join(tmp, 'mariadb-run.json');
      const r = await runTunelab(
        [
          'run',
          'innodb-compression-insert',
          '--target',
          TEST_MYSQL_URL,
          '--envelope',
          'read-iops=150',
          '--throttle-target',
          '--param',
          'rows=2000',
          '--param',
          'threads=1',
          '--param',
          'sample_every_rows=1000',
          '--repetitions',
          '1',
          '--out',
          out,
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(EXIT.OK);
      const { submission } = JSON.parse(await readFile(out, 'utf8')) as { submission: RunSubmission };
      expect(submission.hardware.envelope).toMatchObject({ readIops: 150, mechanism: 'cgroup-v1' });
      expect(submission.hardware.envelope!.description).toMatch(
        new RegExp(`the server's process ${pid} was moved in for the run and back after it`),
      );
      expect(storageTierOf(submission.hardware.measured!)).toBe('hdd-like');
      expect(hardwareClassOf(submission.hardware)).toMatch(/HDD-like, emulated$/);
      // Back where it was, and no envelope left.
      expect(await cgroups()).toBe(before);
      expect(newEnvelopeDirs(dirsBefore)).toEqual([]);
    },
    240_000,
  );

  it('refuses a memory limit on a server of the user’s: a running server keeps what it holds', async () => {
    const r = await runTunelab(
      ['run', 'innodb-compression-insert', '--target', TEST_MYSQL_URL, '--envelope', 'memory=1GB'],
      env,
    );
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(/--envelope memory=… is for a server the runner starts/);
  });

  // A runner that is not root cannot use cgroups: one sentence, exit 7, nothing installed or run.
  const postgresUser = hasPostgresUser;
  // Skipped only without root (it runs the CLI as the `postgres` OS user) or without that user; CI has both.
  it.skipIf(!root || !postgresUser)(
    'exits 7 without root, before installing or starting anything',
    async () => {
      await runTunelabAsPostgres(
        ['run', 'vacuum-index-cleanup', '--server', '17', '--envelope', 'memory=1GB', '--param', 'rows=2000'],
        async (r, home) => {
          expect(r.status, r.stderr).toBe(EXIT.ENVELOPE_UNAVAILABLE);
          expect(r.stderr).toMatch(/an envelope limits a server with cgroups, which needs root/);
          // Nothing installed: the servers directory holds no major.
          expect((await readdir(home)).filter((f) => /^\d+$/.test(f))).toEqual([]);
        },
      );
    },
    150_000,
  );
});
