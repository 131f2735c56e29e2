/**
 * The one policy for runs left out of a verdict. A run flagged noisy (contracts' judgeNoise) and
 * measured without paired blocks is left out when the answers are asked with `noisy=exclude` (the
 * report site's default): its
 * figures decide no verdict and no agreement. It is not hidden either: the runs left out are
 * grouped and answered like any others (`leftOut` of a scenario's answers) and every group of
 * them carries the same label and reason, so a page with only noisy runs shows what they
 * measured, labelled, instead of nothing. The API, the site's pages and its feed take the label
 * from here.
 */
import type { LeftOut, LeftOutReason, NoiseCounts, NoisyPolicy } from '@tunelab/contracts';

const NOISY_LABEL = 'measured on a noisy machine: does not count towards the verdict';

const runs = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'run' : 'runs'}`;

/** The label and reason of a group of `n` runs left out for `reason`. */
export function leftOutLabel(reason: LeftOutReason, n: number): LeftOut {
  switch (reason) {
    case 'noisy':
      return {
        reason,
        label: NOISY_LABEL,
        why: `${n === 1 ? 'its run was' : `all ${runs(n)} were`} flagged noisy (CPU steal, load per core, timer lateness or probe spread above their thresholds) and measured without paired blocks, and such runs are left out of the verdicts; run it again on a quieter machine, or with a runner that measures in paired blocks, to count`,
      };
  }
}

/**
 * Why one run (or one of its sample rows) is left out under `policy`, or null when it counts. A
 * run measured in paired blocks (its samples have a `position`) always counts: each block runs
 * every variant back to back, so a noisy moment slows both sides of its ratios and the verdict's
 * interval already carries the noise; leaving it out would throw away a decided answer for a
 * flag its own statistics answer.
 */
export function leftOutReasonOf(
  run: { noisy?: boolean | null; position?: number | null },
  policy: NoisyPolicy | undefined,
): LeftOutReason | null {
  const paired = run.position !== null && run.position !== undefined;
  return policy === 'exclude' && run.noisy === true && !paired ? 'noisy' : null;
}

/**
 * Whether a comparison group (of any grouping: class, machine) does not count under `policy`:
 * every run it drew on was flagged noisy. Pages that draw from comparisons pooled with every run
 * (charts, the hardware page, the feed) label such a group as the answers leave it out.
 */
export function leftOutOfGroup(g: { noise: NoiseCounts }, policy: NoisyPolicy | undefined): LeftOut | null {
  const { runs: n, noisy, paired } = g.noise;
  return policy === 'exclude' && n > 0 && noisy - paired === n ? leftOutLabel('noisy', n) : null;
}

/** Rows split by the policy: those that count, and those left out (with the same reason each). */
export function splitLeftOut<R extends { noisy?: boolean | null; position?: number | null }>(
  rows: readonly R[],
  policy: NoisyPolicy | undefined,
): { counted: R[]; leftOut: R[] } {
  const counted: R[] = [];
  const leftOut: R[] = [];
  for (const r of rows) (leftOutReasonOf(r, policy) === null ? counted : leftOut).push(r);
  return { counted, leftOut };
}

/**
 * Groups answered from left-out runs, each labelled; their keys say they are left out, so a page
 * never takes one for the counted group of the same class and conditions.
 */
export function labelLeftOut<A extends { group: { key: string; runCount: number } }>(
  answers: readonly A[],
  reason: LeftOutReason,
): (A & { leftOut: LeftOut })[] {
  return answers.map((a) => ({
    ...a,
    group: { ...a.group, key: `${a.group.key}#left-out:${reason}` },
    leftOut: leftOutLabel(reason, a.group.runCount),
  }));
}
