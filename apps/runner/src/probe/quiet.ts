/**
 * Blocks start on a quiet machine. Between two blocks the server under test and the runner are
 * idle, so the CPU time the machine spends then is other work's: a build, a test suite, a
 * neighbour. A block started in such a burst measures the burst as much as the variants — on the
 * 2-core VM an `astro check` beside `npm start` made 1-2 against 1-1 swing by 21 % from block to
 * block for 25 blocks, where the quiet blocks after it agreed within 3 %.
 *
 * Before each block the runner samples the CPUs for QUIET.windowMs and waits while they are busier
 * than QUIET.busyShare: at most a block's worth (the last block's time, within QUIET.minWaitMs and
 * QUIET.maxWaitMs) before one block, and in all at most QUIET.baseBudgetMs plus QUIET.budgetShare
 * of the time measured so far, so a machine that is never quiet costs a bounded share more time,
 * not a run that never ends. Whether to wait is read from the machine before the block, never from
 * a measured value, so waiting cannot bias a verdict; and every block measured is kept.
 */
import { readCpuJiffies } from './proc-stat.ts';

export const QUIET = {
  /** How long one look at the CPUs lasts. */
  windowMs: 250,
  /** Share of all CPUs' time (user + system) above which the machine is busy with other work. */
  busyShare: 0.25,
  /** Waiting before one block: at least this long allowed… */
  minWaitMs: 3_000,
  /** …and at most this long, whatever the last block took. */
  maxWaitMs: 30_000,
  /** Waiting in all: this much… */
  baseBudgetMs: 15_000,
  /** …plus this share of the time measured so far. */
  budgetShare: 0.25,
} as const;

/** The share of all CPUs' time that was busy over a window of `windowMs`, 0–1; null where it cannot be read. */
export type BusyReader = (windowMs: number) => Promise<number | null>;

/** busy and total jiffies of all CPUs from /proc/stat (user, nice, system, irq, softirq, steal busy; idle and iowait not). */
async function cpuTimes(): Promise<{ busy: number; total: number } | null> {
  try {
    const j = await readCpuJiffies();
    if (!j) return null;
    const busy = j.user + j.nice + j.system + j.irq + j.softirq + j.steal;
    return { busy, total: busy + j.idle + j.iowait };
  } catch {
    return null;
  }
}

/** The machine's busy share over `windowMs`, from /proc/stat (Linux); null elsewhere. */
export const busyShare: BusyReader = async (windowMs) => {
  const a = await cpuTimes();
  await new Promise((r) => setTimeout(r, windowMs));
  const b = await cpuTimes();
  if (!a || !b || b.total <= a.total) return null;
  return (b.busy - a.busy) / (b.total - a.total);
};

export type QuietWait = {
  /** Time spent waiting beyond the first look (0 when the machine was quiet at once). */
  waitedMs: number;
  /** The last look's busy share (null: not known). */
  busy: number | null;
  /** Whether the block starts on a quiet machine (or one whose busyness is not known). */
  quiet: boolean;
};

/** Looks at the CPUs until they are quiet, or `limitMs` of waiting has passed. */
export async function waitForQuiet(
  limitMs: number,
  signal: AbortSignal,
  read: BusyReader = busyShare,
): Promise<QuietWait> {
  let busy = await read(QUIET.windowMs);
  if (busy === null || busy <= QUIET.busyShare) return { waitedMs: 0, busy, quiet: true };
  const start = performance.now();
  while (busy !== null && busy > QUIET.busyShare) {
    const waitedMs = performance.now() - start;
    if (waitedMs >= limitMs) return { waitedMs, busy, quiet: false };
    signal.throwIfAborted();
    busy = await read(QUIET.windowMs);
  }
  return { waitedMs: performance.now() - start, busy, quiet: true };
}

/** How long the next block may wait for quiet: a block's worth, within what is left of the run's waiting budget. */
export function waitLimitMs(lastBlockMs: number, measuredMs: number, waitedMs: number): number {
  const perBlock = Math.min(QUIET.maxWaitMs, Math.max(QUIET.minWaitMs, lastBlockMs));
  const left = QUIET.baseBudgetMs + QUIET.budgetShare * measuredMs - waitedMs;
  return Math.max(0, Math.min(perBlock, left));
}

/** "waited 12.3 s in all before 5 of 40 blocks …": the run's note, or null when it never waited. */
export function quietNote(waits: readonly QuietWait[]): string | null {
  const waited = waits.filter((w) => w.waitedMs > 0);
  if (waited.length === 0) return null;
  const total = waited.reduce((s, w) => s + w.waitedMs, 0) / 1000;
  const busy = waits.filter((w) => !w.quiet).length;
  return (
    `waited ${total.toFixed(1)} s in all before ${waited.length} of ${waits.length} blocks for other work on the machine to pass ` +
    `(CPUs more than ${Math.round(QUIET.busyShare * 100)} % busy between blocks)` +
    (busy > 0 ? `; ${busy} ${busy === 1 ? 'block' : 'blocks'} started busy all the same, the waiting budget spent` : '')
  );
}

/**
 * The waits of one run's measuring: `beforeBlock` waits for quiet within the limits above and
 * says so through `onWait` when it waited a second or more (or gave up); `afterBlock` counts the
 * block's time towards the budget; `waitedMs` is all the waiting so far, which the run's own time
 * budget does not count; `note` is the run's note.
 */
export function quietGate(signal: AbortSignal, onWait: (text: string) => void, read: BusyReader = busyShare) {
  const waits: QuietWait[] = [];
  let waitedMs = 0;
  let measuredMs = 0;
  let lastBlockMs = 0;
  let blockStart = 0;
  return {
    async beforeBlock(block: number): Promise<void> {
      const w = await waitForQuiet(waitLimitMs(lastBlockMs, measuredMs, waitedMs), signal, read);
      waits.push(w);
      waitedMs += w.waitedMs;
      const busy = w.busy === null ? '' : ` (CPUs ${Math.round(w.busy * 100)} % busy)`;
      if (!w.quiet)
        onWait(
          `block ${block} starts on a busy machine${busy}: waited ${(w.waitedMs / 1000).toFixed(1)} s, all the waiting this block may take`,
        );
      else if (w.waitedMs >= 1000)
        onWait(
          `waited ${(w.waitedMs / 1000).toFixed(1)} s for other work on the machine to pass before block ${block}`,
        );
      blockStart = performance.now();
    },
    afterBlock(): void {
      lastBlockMs = performance.now() - blockStart;
      measuredMs += lastBlockMs;
    },
    get waitedMs() {
      return waitedMs;
    },
    note: () => quietNote(waits),
  };
}
