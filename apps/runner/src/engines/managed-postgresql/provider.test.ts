import { runTunelab } from '../../test-support/cli.ts';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { EXIT } from '../../exit-codes.ts';

// The recovery-init-sync scenario end to end through the CLI, on managed clusters in a private
// --cluster-dir, so "nothing left behind" is an empty directory.
const tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-managed-'));
const clusterDir = await mkdtemp(path.join(tmp, 'clusters-'));
// mkdtemp makes 0700 directories; as root the server runs as the postgres OS user, which must pass them.
await chmod(tmp, 0o755);
await chmod(clusterDir, 0o755);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const tunelab = (args: string[], onStderr?: Parameters<typeof runTunelab>[2]) =>
  runTunelab(args, { TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'), TUNELAB_RUNS_DIR: path.join(tmp, 'runs') }, onStderr);
const postmasters = async () => {
  const out: string[] = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes(clusterDir)) out.push(`${pid}: ${cmd.replaceAll('\0', ' ')}`);
  }
  return out;
};

describe('tunelab run recovery-init-sync (managed cluster)', () => {
  it('measures sync, ready and redo time for fsync and syncfs, interleaved, and removes the cluster', async () => {
    const out = path.join(tmp, 'run.json');
    const r = await tunelab([
      'run',
      'recovery-init-sync',
      '--param',
      'tables=300',
      '--repetitions',
      '1',
      '--cluster-dir',
      clusterDir,
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const submission = RunSubmission.parse(JSON.parse(await readFile(out, 'utf8')).submission);
    const values = (metric: string, variant: string) =>
      submission.samples.filter((s) => s.metric === metric && s.variant === variant).map((s) => s.value);
    for (const variant of ['fsync', 'syncfs']) {
      expect(values('sync_duration', variant)).toHaveLength(1);
      for (const v of values('sync_duration', variant)) expect(v).toBeGreaterThanOrEqual(0);
      for (const v of values('ready_duration', variant)) expect(v).toBeGreaterThan(0);
      expect(values('redo_duration', variant)).toHaveLength(1);
      for (const v of values('datadir_files', variant)) expect(v).toBeGreaterThan(300 + 900);
    }
    // One block: both variants once, in a random order.
    expect(submission.order?.map((o) => o.variant).sort()).toEqual(['fsync', 'syncfs']);
    expect(submission.database.major).toBeGreaterThanOrEqual(14);
    const kinds = submission.notes.map((n) => n.kind);
    expect(kinds).toContain('warm-up');
    expect(submission.notes.find((n) => n.kind === 'data-directory')?.text).toMatch(/file system \S+.*kernel/);
    expect(r.stdout).toMatch(/━━ tables = 300 ━━[\s\S]*data-directory sync before recovery/);
    expect(await readdir(clusterDir)).toEqual([]);
    expect(await postmasters()).toEqual([]);
  });

  it('SIGINT while the tables are being created: exit 130, no server and no directory left', async () => {
    let sent = false;
    const r = await tunelab(
      ['run', 'recovery-init-sync', '--param', 'tables=100000', '--cluster-dir', clusterDir, '--json'],
      (all, child) => {
        if (!sent && /1\/\d+ variant (fsync|syncfs) .*repetition 1…/.test(all)) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 1_500);
        }
      },
    );
    expect(sent).toBe(true);
    expect(r.code, r.stderr).toBe(EXIT.INTERRUPTED);
    expect(await readdir(clusterDir)).toEqual([]);
    expect(await postmasters()).toEqual([]);
  });

  it('bad input: a clear sentence, exit 2, nothing created', async () => {
    const cases: [string[], RegExp][] = [
      [['--cluster-dir', path.join(tmp, 'missing')], /--cluster-dir .*missing: no such directory/],
      [['--cluster-bin', tmp], /no executable postgres, pg_ctl, initdb there/],
      [
        ['--target', 'postgres://postgres@127.0.0.1:5432/postgres'],
        /throwaway postgresql cluster .* leave out --target/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await tunelab([
        'run',
        'recovery-init-sync',
        '--param',
        'tables=10',
        '--cluster-dir',
        clusterDir,
        ...args,
      ]);
      expect(r.code, r.stderr).toBe(EXIT.USAGE);
      expect(r.stderr).toMatch(message);
    }
    const notManaged = await tunelab([
      'run',
      'vacuum-index-cleanup',
      '--target',
      'postgres://postgres@127.0.0.1:5432/postgres',
      '--cluster-dir',
      clusterDir,
    ]);
    expect(notManaged.code).toBe(EXIT.USAGE);
    expect(notManaged.stderr).toMatch(/--cluster-bin and --cluster-dir are for a server the runner manages/);
    expect(await readdir(clusterDir)).toEqual([]);
    expect(existsSync(path.join(tmp, 'missing'))).toBe(false);
  });
});
