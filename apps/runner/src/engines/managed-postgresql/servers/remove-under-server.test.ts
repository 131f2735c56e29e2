/**
 * `tunelab servers remove` under a server that still runs the build: the runner that started it was
 * killed with SIGKILL (its postmaster kept running), and the removal is asked from another ledger
 * directory, which holds no record of it. The build itself says it is in use (its processes), so
 * the removal is refused (exit 1, one sentence naming the postmaster) and the build stays; once
 * that server is stopped (`tunelab cleanup` from the run's own ledger) the removal goes through.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidAlive, type ClusterRecord } from '../cluster/orphans.ts';
import { EXIT } from '../../../exit-codes.ts';
import { runTunelab } from '../../../test-support/cli.ts';
import { TEST_SERVERS_DIR } from '../../../test-support/servers.ts';

const temps: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'h42_remove_'));
  await chmod(d, 0o755); // the managed server's OS user must reach it
  temps.push(d);
  return d;
}
const postmasters: number[] = [];
afterAll(async () => {
  // Whatever happened above, no server of this file keeps running.
  for (const pid of postmasters) if (pidAlive(pid)) process.kill(pid, 'SIGQUIT');
  for (const d of temps) await rm(d, { recursive: true, force: true });
});

describe('servers remove: not under a live postmaster, whichever ledger knows of it', () => {
  it('refuses (exit 1) from another ledger directory after the runner was SIGKILLed; removes once the server is stopped', async () => {
    // The shared build, installed once; a hard-linked copy in a store of this test's own.
    expect((await runTunelab(['servers', 'install', '17'], { TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR })).code).toBe(0);
    const store = await tempDir();
    execFileSync('cp', ['-al', path.join(TEST_SERVERS_DIR, '17'), path.join(store, '17')]);
    const clusters = await tempDir();
    const ledger = await tempDir();
    const otherLedger = await tempDir();

    let killed = false;
    const r = await runTunelab(
      ['run', 'vacuum-index-cleanup', '--server', '17', '--param', 'rows=200000', '--cluster-dir', clusters],
      { TUNELAB_SERVERS_DIR: store, TUNELAB_LEDGER_DIR: ledger },
      (all, child) => {
        if (!killed && all.includes('fixture:')) {
          killed = true;
          child.kill('SIGKILL');
        }
      },
    );
    expect(killed, r.stderr).toBe(true);
    const [file] = (await readdir(ledger)).filter((f) => f.startsWith('managed-'));
    const record = JSON.parse(await readFile(path.join(ledger, file!), 'utf8')) as ClusterRecord;
    const pid = Number(readFileSync(path.join(record.dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    postmasters.push(pid);
    expect(pidAlive(pid)).toBe(true);

    // Another ledger directory has no record of it: the build's own processes say it is in use.
    const refused = await runTunelab(['servers', 'remove', '17'], {
      TUNELAB_SERVERS_DIR: store,
      TUNELAB_LEDGER_DIR: otherLedger,
    });
    expect(refused.code, refused.stderr).toBe(EXIT.RUN_FAILED);
    const lines = refused.stderr.split('\n').filter((l) => l.startsWith('tunelab:'));
    expect(lines).toEqual([
      expect.stringContaining(
        `tunelab: cannot remove PostgreSQL 17 in ${store}: a server runs it (pid ${pid}, data directory ${record.dataDirectory}); stop it first`,
      ),
    ]);
    expect(existsSync(path.join(store, '17', 'native', 'bin', 'postgres'))).toBe(true);
    expect(pidAlive(pid)).toBe(true);

    // `tunelab cleanup` from the run's own ledger stops it; then the build may go.
    const c = await runTunelab(['cleanup'], { TUNELAB_SERVERS_DIR: store, TUNELAB_LEDGER_DIR: ledger });
    expect(c.code, c.stderr).toBe(0);
    for (let i = 0; i < 50 && pidAlive(pid); i++) await new Promise((res) => setTimeout(res, 100));
    expect(pidAlive(pid)).toBe(false);
    const removed = await runTunelab(['servers', 'remove', '17'], {
      TUNELAB_SERVERS_DIR: store,
      TUNELAB_LEDGER_DIR: otherLedger,
    });
    expect(removed.code, removed.stderr).toBe(0);
    expect(await readdir(store)).toEqual([]);
  }, 300_000);
});
