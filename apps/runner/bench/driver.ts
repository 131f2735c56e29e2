/**
 * `npm run bench:driver` — is TuneLab's TPROC-C driver ever the bottleneck?
 *
 * Builds a TPROC-C database once, then drives the same five PL/pgSQL functions alternately with
 * pgbench (`-f` scripts drawing the same arguments, `-M prepared`, one thread, no vacuum) and
 * with the runner's driver (`runTprocc`), at 1, 2 and 4 users, for the same duration. Prints both
 * throughputs, the ratio driver ÷ pgbench (aim ≥ 0.9) and the driver's CPU time per transaction.
 * New orders never roll back here: pgbench 15 ends a client on any error other than a
 * serialization failure or deadlock (those it retries with --max-tries, like the driver).
 *
 * Options: --target URL (server; default postgres://postgres@127.0.0.1:5432/postgres),
 * --users 1,2,4  --seconds 10  --rounds 2  --warehouses 2  --mix hammerdb|tpcc
 * --pgbench PATH (default: pgbench on PATH, else /usr/lib/postgresql/15/bin/pgbench).
 * A progress line on stderr every 5 s says which step is running.
 */
import { spawn } from 'node:child_process';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { progressLines } from '@tunelab/env/bench';
import { MIXES, runTprocc, TX_TYPES, type MixName } from '../src/workload/tprocc.ts';
import { createTproccDatabase, dropDatabase } from '../src/test-support/tprocc-db.ts';
import { TEST_PG_URL } from '../src/test-support/pg.ts';
import { postgresDriver } from '../src/engines/postgresql/driver.ts';
import { childEnv, loadBenchEnv } from './env.ts';

const env = loadBenchEnv();

const { values: args } = parseArgs({
  options: {
    target: { type: 'string', default: TEST_PG_URL },
    users: { type: 'string', default: '1,2,4' },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    warehouses: { type: 'string', default: '2' },
    mix: { type: 'string', default: 'hammerdb' },
    pgbench: { type: 'string' },
  },
});
const users = args.users.split(',').map(Number);
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const warehouses = Number(args.warehouses);
const mix = args.mix as MixName;
if (
  !(mix in MIXES) ||
  users.some((u) => !Number.isInteger(u) || u < 1) ||
  !(seconds > 0) ||
  !(rounds >= 1) ||
  !Number.isInteger(warehouses) ||
  warehouses < 1
) {
  console.error(
    'usage: npm run bench:driver -- [--users 1,2,4] [--seconds 10] [--rounds 2] [--warehouses 2] [--mix hammerdb|tpcc] [--target URL]',
  );
  process.exit(2);
}

/** The driver's argument draws (apps/runner/src/workload/tprocc.ts), in pgbench's language. */
const SCRIPTS: Record<(typeof TX_TYPES)[number], string> = {
  neword: `\\set d random(1, 10)
\\set c random(1, 3000)
\\set lines random(5, 15)
\\set rbk random(2, 100)
SELECT neword(:w, :warehouses, :d, :c, :lines, :rbk);`,
  payment: `\\set d random(1, 10)
\\set c random(1, 3000)
\\set pick random(1, 100)
\\set last ((random(0, 255) | random(0, 999)) + 223) % 1000
\\set cents random(100, 500000)
SELECT payment(:w, :warehouses, :d, :c, :pick, :last, :cents);`,
  delivery: `\\set carrier random(1, 10)
SELECT delivery(:w, :carrier);`,
  ostat: `\\set d random(1, 10)
\\set c random(1, 3000)
\\set pick random(1, 100)
\\set last ((random(0, 255) | random(0, 999)) + 223) % 1000
SELECT ostat(:w, :d, :c, :pick, :last);`,
  slev: `\\set d random(1, 10)
\\set threshold random(10, 20)
SELECT slev(:w, :d, :threshold);`,
};

async function findPgbench(): Promise<string> {
  if (args.pgbench) return args.pgbench;
  for (const dir of [...env.PATH.split(':'), '/usr/lib/postgresql/15/bin']) {
    const p = path.join(dir, 'pgbench');
    if (
      await access(p).then(
        () => true,
        () => false,
      )
    )
      return p;
  }
  throw new Error('pgbench not found; pass --pgbench PATH');
}

async function runPgbench(pgbench: string, dir: string, url: string, clients: number): Promise<number> {
  const u = new URL(url);
  const files = TX_TYPES.flatMap((t) => ['-f', `${path.join(dir, `${t}.sql`)}@${MIXES[mix][t]}`]);
  const argv = [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(clients),
    '-j',
    '1',
    '-T',
    String(seconds),
    '--max-tries',
    '10',
    '-D',
    `warehouses=${warehouses}`,
    ...files,
    '-h',
    u.hostname,
    '-p',
    u.port || '5432',
    '-U',
    decodeURIComponent(u.username || 'postgres'),
    decodeURIComponent(u.pathname.slice(1)),
  ];
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(pgbench, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv({ PGAPPNAME: 'tunelab-bench-pgbench' }),
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`pgbench exited with ${code}:\n${text}`)),
    );
  });
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
  const failed = /number of failed transactions: (\d+)/.exec(out);
  if (!tps) throw new Error(`no tps in pgbench's output:\n${out}`);
  if (failed && Number(failed[1]) > 0) console.warn(`  pgbench: ${failed[1]} failed transactions`);
  return Number(tps[1]);
}

async function runDriver(url: string, vus: number): Promise<{ tps: number; cpuPerTx: number }> {
  const r = await runTprocc({
    openSession: () =>
      postgresDriver.openDatabase(url, decodeURIComponent(new URL(url).pathname.slice(1)), 'tunelab-bench-driver'),
    vus,
    warehouses,
    mix,
    rampUpSeconds: 0,
    durationSeconds: seconds,
    rollbacks: false,
  });
  if (r.totals.errors > 0) console.warn(`  driver: ${r.totals.errors} failed transactions (${r.errorMessages[0]})`);
  return { tps: r.totals.transactions / r.elapsedSeconds, cpuPerTx: r.clientCpuMicros / r.totals.transactions };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main() {
  const pgbench = await findPgbench();
  const db = `tunelab_bench_driver_${process.pid}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'tunelab-bench-driver-'));
  const stop = () => void dropDatabase(args.target, db).finally(() => process.exit(130));
  process.once('SIGINT', stop);
  let step = `building ${warehouses} warehouse(s)`;
  const lines = progressLines('driver', () => step);
  try {
    for (const t of TX_TYPES)
      await writeFile(path.join(dir, `${t}.sql`), `\\set w :client_id % :warehouses + 1\n${SCRIPTS[t]}\n`);
    console.log(`building ${warehouses} warehouse(s) in ${db}…`);
    const url = await createTproccDatabase(args.target, db, warehouses);
    console.log(
      `${mix} mix, ${seconds} s per run, ${rounds} round(s), pgbench and the driver alternating (order swapped every round)\n`,
    );
    const rows: string[][] = [];
    for (const vus of users) {
      const pg: number[] = [];
      const drv: number[] = [];
      const cpu: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const runs = [
          async () => {
            step = `${vus} user(s), round ${round + 1} of ${rounds}: pgbench for ${seconds} s`;
            pg.push(await runPgbench(pgbench, dir, url, vus));
          },
          async () => {
            step = `${vus} user(s), round ${round + 1} of ${rounds}: the driver for ${seconds} s`;
            const d = await runDriver(url, vus);
            drv.push(d.tps);
            cpu.push(d.cpuPerTx);
          },
        ];
        if (round % 2 === 1) runs.reverse();
        for (const run of runs) await run();
        console.log(
          `  ${vus} user(s), round ${round + 1}: pgbench ${pg.at(-1)!.toFixed(0)} tps, driver ${drv.at(-1)!.toFixed(0)} tps`,
        );
      }
      rows.push([
        String(vus),
        mean(pg).toFixed(0),
        mean(drv).toFixed(0),
        (mean(drv) / mean(pg)).toFixed(2),
        mean(cpu).toFixed(0),
      ]);
    }
    const head = ['users', 'pgbench tps', 'driver tps', 'driver ÷ pgbench', 'driver CPU µs/tx'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    console.log(`\n${head.map((h, i) => h.padStart(widths[i]!)).join('  ')}`);
    for (const r of rows) console.log(r.map((c, i) => c.padStart(widths[i]!)).join('  '));
    console.log(
      `\nmeasured: TPROC-C throughput (${mix} mix, ${warehouses} warehouse(s)) of pgbench and of the runner's driver, ${seconds} s each, ${rounds} round(s) per user count; aim driver ÷ pgbench ≥ 0.9`,
    );
  } finally {
    lines.stop();
    process.off('SIGINT', stop);
    await dropDatabase(args.target, db);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
