/**
 * `npm run bench:aa`: calibrates the sequential design on this machine, with the
 * runner's whole pipeline (runScenario: probe, fixture, blocks in a random order, a CHECKPOINT
 * before each unit, the sequential stop) against the PostgreSQL server TEST_PG_URL:
 *
 * - A/A: one variant against itself under two labels — a plain VACUUM after a 90 % delete (the
 *   chore of vacuum-full-rewrite) and a CPU-bound PL/pgSQL loop. Any "differs" is a
 *   false decision; the design promises at most 5 %.
 * - Known effect: the same loop with 1.2× the iterations against 1× — 20 % more work. "Detected" = the
 *   run decides "differs" in the right direction; the issue asks for at least 95 %.
 *
 * Prints one line per experiment (decision, blocks, seconds, ratio), a progress line on stderr
 * every 5 s while one runs, and the rates, with the load average before and after. A benchmark,
 * not a test. The defaults (2 A/A, one of each kind, and 1 known-effect) are a check of a few
 * minutes that the whole pipeline decides on this machine; the calibration that the
 * false-decision rate and the power are read from takes BENCH_AA_EXPERIMENTS=40
 * BENCH_EFFECT_EXPERIMENTS=20 (about 15-30 minutes on a quiet machine).
 *
 * BENCH_AA_EXPERIMENTS (2, split evenly between the two A/A kinds), BENCH_EFFECT_EXPERIMENTS (1),
 * BENCH_AA_BUDGET_SECONDS per experiment (30), BENCH_AA_MAX_BLOCKS (40), BENCH_AA_LOOP (the loop's
 * iterations, 6,000,000: units of about half a second; a count(*) over generate_series, the first
 * try, spills its 6,000,000 rows to temporary files and times the disk too), BENCH_AA_VACUUM_ROWS
 * (600,000), TEST_PG_URL the server.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseEnv } from '@tunelab/env';
import { progressLines } from '@tunelab/env/bench';
import { TEST_PG_URL } from '@tunelab/env/testing';
import { loadScenario } from '@tunelab/scenarios';
import { runScenario } from '../src/engine/run-scenario.ts';

const env = parseEnv(
  z.object({
    BENCH_AA_EXPERIMENTS: z.coerce.number().int().min(0).max(1000).default(2),
    BENCH_EFFECT_EXPERIMENTS: z.coerce.number().int().min(0).max(1000).default(1),
    BENCH_AA_BUDGET_SECONDS: z.coerce.number().int().min(10).max(3600).default(30),
    BENCH_AA_MAX_BLOCKS: z.coerce.number().int().min(3).max(1000).default(40),
    BENCH_AA_LOOP: z.coerce.number().int().min(1000).max(1e10).default(6_000_000),
    BENCH_AA_VACUUM_ROWS: z.coerce.number().int().min(1000).max(1e8).default(600_000),
  }),
  process.env,
);

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

type Kind = { key: string; what: string; truth: 'none' | 'slower'; yaml: string; fixture: string };

const decision = `decision:
  margin: 0.1
  budget_seconds: ${env.BENCH_AA_BUDGET_SECONDS}
  max_blocks: ${env.BENCH_AA_MAX_BLOCKS}
`;
/** Pure CPU in the server: no rows kept, no temporary file (a count over generate_series spills its rows). */
const loop = (n: number) => `DO $$DECLARE s bigint := 0; BEGIN FOR i IN 1..${n} LOOP s := s + i; END LOOP; END$$`;
/** A two-variant scenario: a and b each time one statement, b compared with a. */
const scenarioYaml = (key: string, title: string, a: string, b: string) => `key: ${key}
title: calibration — ${title}
engines: [postgresql]
fixture:
  - { action: sql, file: fixture.sql }
variants:
${[
  ['a', a],
  ['b', b],
]
  .map(
    ([v, sql]) => `  - key: ${v}
    label: ${v}
    steps:
      - action: timed
        steps:
          - { action: sql, sql: "${sql}" }
`,
  )
  .join('')}comparisons:
  - { baseline: a, candidate: b }
metrics:
  - { key: duration, source: timed, unit: s, better: lower }
repetitions:
  default: 3
${decision}`;

const KINDS: Kind[] = [
  {
    key: 'aa-vacuum',
    what: 'A/A: VACUUM after a 90 % delete, twice',
    truth: 'none',
    fixture: `CREATE TABLE test (id int PRIMARY KEY, pad text);
INSERT INTO test SELECT g, md5(g::text) FROM generate_series(1, ${env.BENCH_AA_VACUUM_ROWS}) g;
DELETE FROM test WHERE id % 10 <> 0;
`,
    yaml: scenarioYaml('aa-vacuum', 'the same VACUUM under two labels', 'VACUUM test', 'VACUUM test'),
  },
  {
    key: 'aa-loop',
    what: 'A/A: the same loop twice',
    truth: 'none',
    fixture: 'SELECT 1;\n',
    yaml: scenarioYaml('aa-loop', 'the same loop twice', loop(env.BENCH_AA_LOOP), loop(env.BENCH_AA_LOOP)),
  },
  {
    key: 'effect-loop',
    what: 'known effect: 1.2x the iterations',
    truth: 'slower',
    fixture: 'SELECT 1;\n',
    yaml: scenarioYaml(
      'effect-loop',
      'a loop of 1.2x the iterations',
      loop(env.BENCH_AA_LOOP),
      loop(Math.round(env.BENCH_AA_LOOP * 1.2)),
    ),
  },
];

const root = await mkdtemp(path.join(os.tmpdir(), 'tunelab-calibrate-'));
const scenarios = new Map<string, Awaited<ReturnType<typeof loadScenario>>>();
for (const kind of KINDS) {
  const dir = path.join(root, kind.key);
  await mkdir(dir);
  await writeFile(path.join(dir, 'scenario.yaml'), kind.yaml);
  await writeFile(path.join(dir, 'fixture.sql'), kind.fixture);
  await writeFile(path.join(dir, 'README.md'), `# ${kind.what}\n\nA calibration scenario of npm run bench:aa.\n`);
  scenarios.set(kind.key, await loadScenario(dir));
}

// Interleaved (A/A, A/A, effect, …), so that the machine's drift over the session reaches every kind alike.
const queues: Kind[][] = [
  Array.from({ length: env.BENCH_AA_EXPERIMENTS }, (_, i) => KINDS[i % 2]!),
  Array.from({ length: env.BENCH_EFFECT_EXPERIMENTS }, () => KINDS[2]!),
];
const total = env.BENCH_AA_EXPERIMENTS + env.BENCH_EFFECT_EXPERIMENTS;
const plan: Kind[] = [];
while (plan.length < total) {
  // The kind furthest behind its share goes next.
  const [aa, effect] = queues;
  const aaDue = aa!.length / Math.max(1, env.BENCH_AA_EXPERIMENTS);
  const effectDue = effect!.length / Math.max(1, env.BENCH_EFFECT_EXPERIMENTS);
  plan.push((aaDue >= effectDue && aa!.length > 0 ? aa : effect)!.shift() ?? aa!.shift()!);
}

console.log(
  `bench:aa — ${env.BENCH_AA_EXPERIMENTS} A/A and ${env.BENCH_EFFECT_EXPERIMENTS} known-effect experiments on ${TEST_PG_URL}, each up to ${env.BENCH_AA_MAX_BLOCKS} blocks or ${env.BENCH_AA_BUDGET_SECONDS} s; load ${load()}`,
);
const results: { kind: Kind; decision: string; direction: string | null }[] = [];
const started = Date.now();
let current = 'writing the scenarios';
const lines = progressLines('aa', () => current);
try {
  for (const [i, kind] of plan.entries()) {
    current = `experiment ${i + 1} of ${plan.length} (${kind.key}) running`;
    const t0 = Date.now();
    const run = await runScenario({ scenario: scenarios.get(kind.key)!, target: TEST_PG_URL });
    const s = run.submission;
    const stopped = s.options?.sequential?.stopped ?? 'fixed';
    const note = s.notes.find((n) => n.kind === 'stopping-rule')?.text ?? '';
    const d = /b vs a (\w+)/.exec(note)?.[1] ?? 'unknown';
    const durations = (v: string) => s.samples.filter((x) => x.variant === v && x.metric === 'duration');
    const a = durations('a');
    const b = durations('b');
    let logSum = 0;
    for (const x of b) logSum += Math.log(x.value / a.find((y) => y.repetition === x.repetition)!.value);
    const ratio = Math.exp(logSum / b.length);
    const direction = d === 'differs' ? (ratio > 1 ? 'slower' : 'faster') : null;
    results.push({ kind, decision: d, direction });
    console.log(
      `${String(i + 1).padStart(3)} ${kind.key.padEnd(13)} ${d.padEnd(10)} ${String(s.options?.repetitions ?? 0).padStart(3)} blocks ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s  b/a ${ratio.toFixed(3)}  (${stopped})  load ${load()}`,
    );
  }
} finally {
  lines.stop();
  await rm(root, { recursive: true, force: true });
}

const aa = results.filter((r) => r.kind.truth === 'none');
const effect = results.filter((r) => r.kind.truth === 'slower');
const share = (n: number, of: number) => (of === 0 ? 'n/a' : `${n}/${of} = ${((100 * n) / of).toFixed(1)} %`);
const falseDiffers = aa.filter((r) => r.decision === 'differs').length;
console.log('');
console.log(
  `measured: the sequential design's decisions through the whole runner on ${aa.length} A/A and ${effect.length} known-effect experiments${total < 60 ? ' (a check; the calibration is BENCH_AA_EXPERIMENTS=40 BENCH_EFFECT_EXPERIMENTS=20)' : ''}`,
);
console.log(`A/A false "differs": ${share(falseDiffers, aa.length)} (the design promises ≤ 5 %)`);
for (const key of ['aa-vacuum', 'aa-loop'])
  console.log(
    `  ${key}: differs ${share(aa.filter((r) => r.kind.key === key && r.decision === 'differs').length, aa.filter((r) => r.kind.key === key).length)}, equivalent ${aa.filter((r) => r.kind.key === key && r.decision === 'equivalent').length}, undecided or unstable ${aa.filter((r) => r.kind.key === key && r.decision !== 'differs' && r.decision !== 'equivalent').length}`,
  );
console.log(
  `known 20 % effect detected (differs, slower): ${share(effect.filter((r) => r.direction === 'slower').length, effect.length)} (the aim: ≥ 95 %)`,
);
console.log(`total ${((Date.now() - started) / 60_000).toFixed(1)} min; load ${load()}`);
