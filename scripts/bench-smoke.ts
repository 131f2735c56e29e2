/**
 * `npm run bench:smoke`: every benchmark (`npm run bench:*`) at its smallest size, `--jobs` (3) at
 * a time, so that CI notices a benchmark that no longer runs. Each must exit 0 within `--timeout`
 * seconds (420) and print the line that says what it measured; the figures themselves are not
 * judged (too small and too loaded to mean anything). Prints a line per benchmark as it ends, then
 * the wall time of each and of all, and exits 1 if one failed (its output's last lines are shown),
 * 2 on a bad option. `-- --only site,aa` runs some of them.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

type Smoke = { name: string; args?: string[]; env?: Record<string, string>; says: RegExp };

/** Each benchmark's smallest size, and what its output must say. */
const SMOKES: Smoke[] = [
  {
    name: 'ingest',
    args: ['--clients', '1', '--submissions', '2', '--warmup', '0', '--rounds', '1'],
    says: /ratio/,
  },
  {
    name: 'fleet',
    args: [
      ...['--agents', '1', '--jobs', '1', '--tokens', '1', '--history', '1', '--idle-agents', '1'],
      ...['--idle-seconds', '1', '--completed', '1', '--round-jobs', '1', '--round-agents', '1'],
    ],
    says: /duplicate/,
  },
  { name: 'compare', args: ['--iterations', '10', '--sizes', '400,2000'], says: /^measured: /m },
  {
    name: 'reads',
    args: ['--readers', '1', '--submissions', '1', '--interval-ms', '0', '--rounds', '1', '--seed', '0'],
    says: /^measured: /m,
  },
  {
    name: 'driver',
    args: ['--users', '1', '--seconds', '1', '--rounds', '1', '--warehouses', '1'],
    says: /^measured: /m,
  },
  { name: 'advise', args: ['--tables', '1000', '--runs', '1'], says: /^measured: /m },
  {
    name: 'noise',
    env: {
      BENCH_NOISE_LOOPS: '0,1',
      BENCH_NOISE_WINDOWS: '1',
      BENCH_NOISE_WINDOW_SECONDS: '1',
      BENCH_NOISE_WARMUP_SECONDS: '0',
    },
    says: /^measured: /m,
  },
  {
    name: 'aa',
    env: {
      BENCH_AA_EXPERIMENTS: '2',
      BENCH_EFFECT_EXPERIMENTS: '1',
      BENCH_AA_BUDGET_SECONDS: '10',
      BENCH_AA_MAX_BLOCKS: '3',
      BENCH_AA_LOOP: '1000',
      BENCH_AA_VACUUM_ROWS: '1000',
    },
    says: /^measured: /m,
  },
  {
    name: 'site',
    // The fleet part alone: the page-weight part is one more astro build (about 2 min on a loaded machine).
    env: { BENCH_PARTS: 'fleet', BENCH_FLEET_RUNS: '10', BENCH_FLEET_MACHINES: '5', BENCH_NEW_RUNS: '1' },
    says: /^measured: /m,
  },
];

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '3' },
    timeout: { type: 'string', default: '420' },
    only: { type: 'string' },
  },
});
const jobs = Number(values.jobs);
const timeoutS = Number(values.timeout);
const only = values.only?.split(',').map((s) => s.trim());
const unknown = only?.filter((n) => !SMOKES.some((s) => s.name === n)) ?? [];
if (!Number.isInteger(jobs) || jobs < 1 || !Number.isInteger(timeoutS) || timeoutS < 1 || unknown.length > 0) {
  console.error(
    `bench:smoke: --jobs and --timeout must be whole numbers ≥ 1 and --only a list of ${SMOKES.map((s) => s.name).join(', ')}${unknown.length > 0 ? ` (not ${unknown.join(', ')})` : ''}`,
  );
  process.exit(2);
}

type Result = { smoke: Smoke; seconds: number; failure: string | null; output: string };

function runOne(smoke: Smoke): Promise<Result> {
  const started = performance.now();
  const child = spawn('npm', ['run', '-s', `bench:${smoke.name}`, '--', ...(smoke.args ?? [])], {
    env: { ...process.env, ...smoke.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  let timedOut = false;
  // The whole group (npm, tsx and the benchmark's own children): SIGTERM first, on which the
  // benchmarks drop their databases, then SIGKILL.
  const signal = (s: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, s);
    } catch {
      // already gone
    }
  };
  let killer: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    signal('SIGTERM');
    killer = setTimeout(() => signal('SIGKILL'), 15_000);
  }, timeoutS * 1000);
  return new Promise((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      const seconds = (performance.now() - started) / 1000;
      const failure = timedOut
        ? `still running after ${timeoutS} s`
        : code !== 0
          ? `exit ${signal ?? code}`
          : smoke.says.test(output)
            ? null
            : `its output does not match ${String(smoke.says)}`;
      resolve({ smoke, seconds, failure, output });
    }),
  );
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const chosen = SMOKES.filter((s) => !only || only.includes(s.name));
console.log(`bench:smoke: ${chosen.length} benchmarks at their smallest size, ${jobs} at a time; load ${load()}`);
const started = performance.now();
const queue = [...chosen];
const results: Result[] = [];
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let smoke = queue.shift(); smoke; smoke = queue.shift()) {
      const r = await runOne(smoke);
      results.push(r);
      console.log(`  bench:${smoke.name} ${r.failure ? `FAILED (${r.failure})` : 'ok'} in ${r.seconds.toFixed(1)} s`);
      if (r.failure) console.log(r.output.split('\n').slice(-40).join('\n'));
    }
  }),
);
const failed = results.filter((r) => r.failure);
console.log(
  `bench:smoke: ${results.length - failed.length} of ${results.length} ran (${results
    .map((r) => `${r.smoke.name} ${r.seconds.toFixed(0)} s`)
    .join(', ')}) in ${((performance.now() - started) / 1000).toFixed(0)} s of wall time; load ${load()}`,
);
process.exit(failed.length > 0 ? 1 : 0);
