/**
 * Blocks start on a quiet machine (quiet.ts): the waiting rule on a scripted sequence of looks at
 * the CPUs, its limits, and the real /proc/stat reading beside two real busy processes — which
 * can only make the machine busier, so the checks hold whatever else it runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { busyShare, QUIET, quietGate, quietNote, waitForQuiet, waitLimitMs, type BusyReader } from './quiet.ts';

/** A reader that answers `shares` in turn (the last one from then on), taking no time. */
const scripted = (shares: (number | null)[]): BusyReader => {
  let i = 0;
  return () => Promise.resolve(shares[Math.min(i++, shares.length - 1)]!);
};
const never = new AbortController().signal;

const loops: ChildProcess[] = [];
afterEach(() => {
  for (const c of loops.splice(0)) c.kill('SIGKILL');
});
/** `n` processes that keep a CPU busy until killed. */
function busy(n: number) {
  for (let i = 0; i < n; i++) loops.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

describe('waiting for a quiet machine before a block', () => {
  it('starts at once on a quiet machine, or one whose CPUs cannot be read', async () => {
    expect(await waitForQuiet(5_000, never, scripted([0.05]))).toEqual({ waitedMs: 0, busy: 0.05, quiet: true });
    expect((await waitForQuiet(5_000, never, scripted([null]))).quiet).toBe(true);
  });

  it('waits while the CPUs are busier than the threshold, and starts once they are not', async () => {
    const w = await waitForQuiet(5_000, never, scripted([0.9, 0.8, QUIET.busyShare + 0.01, QUIET.busyShare]));
    expect(w).toMatchObject({ busy: QUIET.busyShare, quiet: true });
  });

  it('gives up after its limit and says the block starts busy', async () => {
    expect(await waitForQuiet(0, never, scripted([0.9]))).toMatchObject({ busy: 0.9, quiet: false });
  });

  it('allows a block a block’s worth of waiting, within the base budget plus a quarter of the time measured', () => {
    expect(waitLimitMs(0, 0, 0)).toBe(QUIET.minWaitMs);
    expect(waitLimitMs(8_000, 100_000, 0)).toBe(8_000);
    expect(waitLimitMs(60_000, 1_000_000, 0)).toBe(QUIET.maxWaitMs);
    // What is left of the budget: base + a quarter of 20 s measured − what was waited.
    expect(waitLimitMs(8_000, 20_000, QUIET.baseBudgetMs)).toBe(5_000);
    expect(waitLimitMs(8_000, 20_000, QUIET.baseBudgetMs + 5_000)).toBe(0);
  });

  it('the run’s note counts the blocks it waited before and those that started busy', () => {
    expect(quietNote([{ waitedMs: 0, busy: 0.1, quiet: true }])).toBeNull();
    expect(
      quietNote([
        { waitedMs: 0, busy: 0.1, quiet: true },
        { waitedMs: 2_500, busy: 0.2, quiet: true },
        { waitedMs: 8_000, busy: 0.7, quiet: false },
      ]),
    ).toBe(
      'waited 10.5 s in all before 2 of 3 blocks for other work on the machine to pass (CPUs more than 25 % busy between blocks); 1 block started busy all the same, the waiting budget spent',
    );
  });

  // Runs on Linux only: the CPUs are read from /proc/stat, which other systems do not have (CI is Linux, so it runs there).
  it.runIf(process.platform === 'linux')('reads two busy processes as a busy machine, and waits for them', async () => {
    busy(2);
    await new Promise((r) => setTimeout(r, 300));
    const share = await busyShare(500);
    // Two processes that never sleep hold two CPUs' worth (or all of a smaller machine's).
    const cpus = (await import('node:os')).availableParallelism();
    expect(share).toBeGreaterThanOrEqual(Math.min(1, 2 / cpus) * 0.6);
    const said: string[] = [];
    const gate = quietGate(never, (t) => said.push(t));
    const t0 = performance.now();
    await gate.beforeBlock(1);
    // It cannot have found the machine quiet while both ran: it waited its whole first allowance.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(QUIET.minWaitMs);
    expect(said).toEqual([expect.stringMatching(/^block 1 starts on a busy machine \(CPUs \d+ % busy\): waited \d/)]);
    expect(gate.note()).toMatch(/^waited \d+\.\d s in all before 1 of 1 blocks .*; 1 block started busy all the same/);
    // Quiet blocks wait for nothing and are not counted as waited before.
    const quietGateRun = quietGate(never, () => {}, scripted([0.1]));
    await quietGateRun.beforeBlock(1);
    expect(quietGateRun.waitedMs).toBe(0);
    expect(quietGateRun.note()).toBeNull();
  });
});
