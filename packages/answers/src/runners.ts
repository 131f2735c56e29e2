/**
 * A class weighs runners, not runs. A class group pools the runs of every machine of its class, so
 * one runner (token) that sends many runs would otherwise decide the class's verdict alone — a
 * second runner copying an honest machine's public spec could flip the answer honest users read.
 * Each runner's runs are answered on their own (the same model, `answerScenario` on that runner's
 * rows). A pair's pooled verdict stands, labelled, unless runners contradict each other: `agreed`
 * (two runners or more give it on their own runs), `pooled` (no runner's runs alone give it, none
 * contradicts it), `one-runner` (exactly one runner's own runs give it: it rests on that runner);
 * `contested` (one runner's runs find the candidate better, another's worse): no verdict — the
 * agreement becomes `inconclusive` and the advice says why, whatever the runs' numbers.
 * Groups with runs of one runner (or of none: imported articles) are left exactly as they were.
 */
import type { PairRunners } from '@tunelab/contracts';
import type { PairAnswerRecord } from './answer.ts';

type VerdictKind = PairRunners['verdicts'][number]['kind'];

/** What this reads of an answered group. */
type RunnerGroup = { group: { key: string; runners: number }; pairs: PairAnswerRecord[] };

/** How the words of the runners' verdicts read, in the metric's direction. */
const WORDS: Record<VerdictKind, string> = {
  faster: 'better',
  slower: 'worse',
  // Undecided or within the margin: either way, no difference shown (the verdicts' own words say which).
  'no-significant-difference': 'no difference shown',
  'insufficient-data': 'too few runs for a verdict',
  descriptive: 'descriptive',
};

/** Why a contested pair's agreement is inconclusive (its advice carries the runners' sentence). */
const CONTESTED_REASON = 'runners: contested (the advice says how), so the agreement with the article is not decided';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The runners' verdicts on one pair, from each runner's own answers; null when the rule does not apply. */
export function pairRunners(
  pooled: PairAnswerRecord,
  own: readonly (PairAnswerRecord | undefined)[],
): PairRunners | null {
  const kind = pooled.measured?.verdict.kind;
  if (!kind || kind === 'descriptive' || kind === 'insufficient-data') return null;
  const counts = new Map<VerdictKind, number>();
  for (const p of own) {
    const k = p?.measured?.verdict.kind;
    if (k) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const verdicts = [...counts].map(([k, runners]) => ({ kind: k, runners })).sort((a, b) => b.runners - a.runners);
  const count = verdicts.reduce((s, v) => s + v.runners, 0);
  const support = counts.get(kind) ?? 0;
  const contested = (counts.get('faster') ?? 0) > 0 && (counts.get('slower') ?? 0) > 0;
  // No runner's runs alone give the verdict and none contradicts it: the runners' runs together do.
  const standing = contested ? 'contested' : support >= 2 ? 'agreed' : support === 0 ? 'pooled' : 'one-runner';
  const pair = `${pooled.candidate} vs ${pooled.baseline}`;
  const each = verdicts.map((v) => `${v.runners} ${WORDS[v.kind]}`).join(', ');
  const head = `${plural(count, 'runner')} answer ${pair} on their own runs: ${each}`;
  const sentence =
    standing === 'contested'
      ? `${head} — contested: the runners contradict each other, and one runner's runs cannot outvote another's, so the class gives no verdict on this pair`
      : standing === 'agreed'
        ? `${head} — ${support} of them give the class's verdict`
        : standing === 'pooled'
          ? `${head} — none contradicts the class's verdict (${WORDS[kind]}), which their runs give together`
          : `${head} — one runner: only 1 of them gives the class's verdict (${WORDS[kind]}), so it rests on one machine owner's runs`;
  return { count, verdicts, support, standing, sentence };
}

/**
 * The pooled groups with each pair's `runners` where a group has runs of two runners or more
 * (`perRunner`: the answers of each runner's rows alone, whose groups carry the same keys); a
 * contested pair's agreement becomes `inconclusive`, its reasons and advice say why.
 */
export function weighRunners<G extends RunnerGroup>(
  pooled: readonly G[],
  perRunner: readonly (readonly RunnerGroup[])[],
): G[] {
  return pooled.map((g) => {
    if (g.group.runners < 2) return g;
    const theirs = perRunner.map((groups) => groups.find((x) => x.group.key === g.group.key));
    return {
      ...g,
      pairs: g.pairs.map((p) => {
        const own = theirs.map((t) => t?.pairs.find((x) => x.baseline === p.baseline && x.candidate === p.candidate));
        const runners = pairRunners(p, own);
        if (!runners) return p;
        if (runners.standing !== 'contested') return { ...p, runners };
        const decided = p.agreement === 'reproduces' || p.agreement === 'contradicts';
        return {
          ...p,
          runners,
          agreement: decided ? 'inconclusive' : p.agreement,
          sentence: decided ? 'inconclusive' : p.sentence,
          // The advice says why in the runners' words; the reason names the rule, not the sentence again.
          reasons: [...p.reasons, CONTESTED_REASON],
          advice: `no advice from this class: ${runners.sentence}; measure on your own machine`,
        };
      }),
    };
  });
}
