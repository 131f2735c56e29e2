/**
 * `npm run bench:noise`: calibrates the noise thresholds on this machine. Runs the
 * runner's own noise watch (`watchNoise`, what every run records) around a fixed window of work on
 * the PostgreSQL server (repeated `generate_series` counts: a server busy on one core while the
 * runner waits, as in a run), with 0, 1, 2 and 4 busy loops beside it, and prints per condition
 * the figures each threshold is held against and whether `judgeNoise` flags the window. A
 * benchmark, not a test: the point is to see that a quiet machine stays under every threshold and
 * a busy one does not.
 *
 * BENCH_NOISE_LOOPS (default "0,1,2,4"), BENCH_NOISE_WINDOWS per condition (3),
 * BENCH_NOISE_WINDOW_SECONDS (8), BENCH_NOISE_WARMUP_SECONDS before each busy condition (20: the
 * 1-minute load average follows the loops), TEST_PG_URL the server (the tests' default). A progress
 * line on stderr every 5 s says which condition and window is running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { z } from 'zod';
import { judgeNoise, NOISE_THRESHOLDS, type RunNoise } from '@tunelab/contracts';
import { parseEnv } from '@tunelab/env';
import { progressLines } from '@tunelab/env/bench';
import { TEST_PG_URL } from '@tunelab/env/testing';
import { watchNoise } from '../src/probe/noise.ts';

const list = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'a comma-separated list of whole numbers')
  .transform((s) => s.split(',').map(Number));
const env = parseEnv(
  z.object({
    BENCH_NOISE_LOOPS: list.default([0, 1, 2, 4]),
    BENCH_NOISE_WINDOWS: z.coerce.number().int().min(1).max(50).default(3),
    BENCH_NOISE_WINDOW_SECONDS: z.coerce.number().min(1).max(600).default(8),
    BENCH_NOISE_WARMUP_SECONDS: z.coerce.number().min(0).max(600).default(20),
  }),
  process.env,
);

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function window(client: pg.Client, seconds: number): Promise<number> {
  const end = Date.now() + seconds * 1000;
  let queries = 0;
  while (Date.now() < end) {
    await client.query('SELECT count(*) FROM generate_series(1, 200000)');
    queries += 1;
  }
  return queries;
}

const f = (x: number | null | undefined, digits = 1) => (x === null || x === undefined ? '—' : x.toFixed(digits));

function row(loops: number, i: number, queries: number, n: RunNoise | null): string {
  if (!n) return `${loops} | ${i} | ${queries} | no noise figures`;
  const j = judgeNoise(n);
  return [
    loops,
    i,
    queries,
    f(n.cpuStealPct),
    f(n.loadAverage ? n.loadAverage.mean / n.logicalCpus : null, 2),
    f(n.cpuProbe.cvPct),
    f(n.cpuProbe.robustCvPct),
    f(n.cpuProbe.cpuSharePct),
    f(n.timerLatenessMs?.p99),
    f(n.ioProbe?.cvPct),
    j.noisy ? `noisy: ${j.reasons.join('; ')}` : 'quiet',
  ].join(' | ');
}

const client = new pg.Client({ connectionString: TEST_PG_URL, application_name: 'tunelab-bench-noise' });
await client.connect();
const t = NOISE_THRESHOLDS;
console.log(`bench:noise on ${os.availableParallelism()} logical CPUs, load average at the start ${load()}`);
console.log(
  `loops | window | queries | steal % (> ${t.cpuStealPct}) | load/core (> ${t.loadPerCore}) | CPU probe CV % | robust CV % (> ${t.cpuProbeCvPct}) | CPU share % (< ${t.cpuSharePct}) | timer p99 ms (> ${t.timerP99Ms}) | I/O probe CV % (> ${t.ioProbeCvPct}) | judgement`,
);
const summary: string[] = [];
let step = 'starting';
const lines = progressLines('noise', () => step);
try {
  for (const loops of env.BENCH_NOISE_LOOPS) {
    const busy: ChildProcess[] = Array.from({ length: loops }, () =>
      spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
    );
    try {
      step = `${loops} busy loops: warm-up of ${env.BENCH_NOISE_WARMUP_SECONDS} s`;
      if (loops > 0) await sleep(env.BENCH_NOISE_WARMUP_SECONDS * 1000);
      let flagged = 0;
      for (let i = 1; i <= env.BENCH_NOISE_WINDOWS; i++) {
        step = `${loops} busy loops: window ${i} of ${env.BENCH_NOISE_WINDOWS} (${env.BENCH_NOISE_WINDOW_SECONDS} s)`;
        const [queries, noise] = await watchNoise(os.tmpdir(), () => window(client, env.BENCH_NOISE_WINDOW_SECONDS));
        if (noise && judgeNoise(noise).noisy) flagged += 1;
        console.log(row(loops, i, queries, noise));
      }
      summary.push(`${loops} busy loops: ${flagged} of ${env.BENCH_NOISE_WINDOWS} windows flagged noisy`);
    } finally {
      for (const b of busy) b.kill('SIGKILL');
    }
  }
} finally {
  lines.stop();
  await client.end();
}
console.log(
  `\nmeasured: the runner's noise figures and judgement over ${env.BENCH_NOISE_WINDOWS} window(s) of ${env.BENCH_NOISE_WINDOW_SECONDS} s of server work per count of busy loops beside it`,
);
console.log(`${summary.join('\n')}\nload average at the end ${load()}`);
