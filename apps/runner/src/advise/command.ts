/**
 * `tunelab advise --target URL [--api URL] [--json]`: reads a server's catalog and statistics
 * (read-only, see engines/<engine>/inspect.ts), and prints per scenario the tables it applies to, the parameters
 * they imply, TuneLab's nearest answer and the `tunelab run` that measures it. Documented in
 * apps/runner/README.md ("Advice for your database").
 */
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { StorageKind, storageLabelOf } from '@tunelab/contracts';
import { listScenarioDirs, loadScenario } from '@tunelab/scenarios';
import type { RunnerConfig } from '../config.ts';
import { redactTarget } from '../engines/target-url.ts';
import type { Inspection } from '../engines/catalog.ts';
import { DRIVERS } from '../engines/index.ts';
import { probeHardware } from '../probe/hardware.ts';
import { adviseFrom, setRequests, type ScenarioAdvice } from './advise.ts';
import { answerSource, type Hardware } from './answers.ts';
import { printable } from '../report/terminal.ts';
import { AdviseError } from './errors.ts';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 1000;

type AdviseOptions = {
  target?: string;
  api?: string;
  json?: boolean;
  limit: number;
  cores?: number;
  memoryGb?: number;
  storage?: StorageKind;
};

const limitArg = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT)
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_LIMIT}`);
  return n;
};
const positive = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
};

export type AdviseReport = {
  target: string;
  inspection: Inspection;
  /** Seconds spent reading the server. */
  inspectSeconds: number;
  hardware: Hardware & { from: string };
  api: string | null;
  scenarios: ScenarioAdvice[];
};

/** Reads the target and builds the report (no output). */
export async function advise(
  target: string,
  opts: {
    api: string | null;
    limit: number;
    /** Asked after the server was read (a bad target fails first, without probing this machine). */
    hardware: () => Promise<Hardware & { from: string }>;
    scenariosDir: string;
  },
): Promise<AdviseReport> {
  let protocol: string;
  try {
    protocol = new URL(target).protocol;
  } catch {
    throw new AdviseError(
      'usage',
      `--target must be a connection URL such as postgres://user@host:5432/db or mysql://user@host:3306/db, got "${target.replace(/:[^:@/]*@/, ':***@')}"`,
    );
  }
  if (opts.api !== null) {
    try {
      const u = new URL(opts.api);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new AdviseError('usage', `--api must be an http(s) URL, got "${opts.api}"`);
    }
  }
  const advisable = DRIVERS.filter((d) => d.inspectCatalog);
  const driver = advisable.find((d) => d.protocols.includes(protocol));
  if (!driver?.inspectCatalog)
    throw new AdviseError(
      'usage',
      `--target ${protocol}// is not supported: give ${advisable.flatMap((d) => d.protocols.map((p) => `${p}//`)).join(', ')}`,
    );
  const dirs = await listScenarioDirs(opts.scenariosDir);
  const scenarios = await Promise.all(dirs.map((d) => loadScenario(d)));
  const wanted = setRequests(scenarios, driver.engines);
  const started = performance.now();
  const inspection: Inspection = await driver.inspectCatalog(target, opts.limit, wanted);
  const inspectSeconds = (performance.now() - started) / 1000;
  const hardware = await opts.hardware();
  return {
    target: redactTarget(target),
    inspection,
    inspectSeconds,
    hardware,
    api: opts.api,
    scenarios: await adviseFrom({
      inspection,
      scenarios: scenarios.sort((a, b) => a.key.localeCompare(b.key)),
      hardware,
      answer: answerSource(opts.api),
      localTarget: driver.isLocal(target) ? withoutPassword(target) : null,
    }),
  };
}

/** A local target for a printed command: the password is left to the environment (MYSQL_PWD, PGPASSWORD). */
function withoutPassword(target: string): string {
  const u = new URL(target);
  u.password = '';
  return u.toString();
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`;

/** The report for people. */
export function renderAdvice(r: AdviseReport): string {
  const i = r.inspection;
  const lines: string[] = [];
  lines.push(`${i.heading} at ${r.target}: ${i.contents}; read in ${r.inspectSeconds.toFixed(2)} s`, ...i.notes);
  lines.push(
    `answers: ${r.api ?? 'none asked (--api URL)'} for ${r.hardware.cores} cores / ${r.hardware.memoryGb} GB / ${r.hardware.disk ?? r.hardware.storage} (${r.hardware.from})`,
  );
  for (const s of r.scenarios) {
    lines.push('', `${s.key} — ${s.title}`, `  rule: ${s.rule}`);
    if (s.notApplicable) {
      lines.push(`  does not apply: ${s.notApplicable}`);
      continue;
    }
    if (!s.tables.length) {
      lines.push('  no table matches');
      continue;
    }
    if (s.matched > s.tables.length) lines.push(`  ${int(s.matched)} match; the first ${s.tables.length}:`);
    for (const t of s.tables) {
      lines.push(`  ${t.table ?? '(the database)'}: ${t.why}`);
      lines.push(
        `    params: ${Object.entries(t.params)
          .map(([k, v]) => `${k}=${int(v)}`)
          .join(', ')}`,
      );
      for (const b of t.beyondRange) lines.push(`    note: ${b}`);
      lines.push(`    answer: ${t.answer.sentence}`);
      if (t.answer.status === 'answered')
        for (const p of t.answer.atScale)
          lines.push(`      at your scale, ${p.baseline} vs ${p.candidate}: ${p.sentence}`);
      if (t.answer.status === 'answered')
        for (const p of t.answer.pairs)
          lines.push(
            `      ${p.advice}${p.improvement !== null ? ` (${p.candidate} vs ${p.baseline}: ${signed(p.improvement)}${p.ci95 && p.ci95.low !== null && p.ci95.high !== null ? `, 95% CI ${signed(p.ci95.low)} … ${signed(p.ci95.high)}` : ''})` : ''}`,
          );
      lines.push(`    measure: ${t.command}`);
    }
  }
  // Names from the catalog and sentences from the API are shown, never obeyed (report/terminal.ts).
  return `${lines.map(printable).join('\n')}\n`;
}

/** This machine's cores, memory and the storage of the OS temp dir (where `tunelab run --server` puts its data), with overrides. */
async function hardwareOf(opts: AdviseOptions): Promise<Hardware & { from: string }> {
  const overridden = opts.cores !== undefined && opts.memoryGb !== undefined && opts.storage !== undefined;
  if (overridden) return { cores: opts.cores!, memoryGb: opts.memoryGb!, storage: opts.storage!, from: 'as given' };
  const { spec } = await probeHardware({
    dataDirectory: os.tmpdir(),
    ...(opts.storage ? { storageOverride: opts.storage } : {}),
  });
  return {
    cores: opts.cores ?? spec.physicalCores,
    memoryGb: opts.memoryGb ?? Math.round(spec.memoryBytes / 1024 ** 3),
    storage: spec.storage.kind,
    // What the probe measured: the API ranks the classes by these figures as it ranks for GET /v1/similar.
    figures: spec.measured
      ? {
          fsyncP50Us: spec.measured.fsyncP50Us,
          readIopsQd1: spec.measured.readIopsQd1,
          readIopsQd16: spec.measured.readIopsQd16,
          seqWriteMBps: spec.measured.seqWriteMBps,
          cpuScore: spec.measured.cpuScore,
          cpuWorkload: spec.measured.cpuWorkload,
        }
      : null,
    // The measured tier when the probe measured the disk ("NVMe-like"), as the runs' classes name it.
    disk: storageLabelOf(spec),
    from: (opts.cores ?? opts.memoryGb ?? opts.storage) ? 'this machine, with the options given' : 'this machine',
  };
}

/** Adds `tunelab advise` to the CLI; sets the exit code through `setExit`. */
export function addAdviseCommand(
  program: Command,
  config: RunnerConfig,
  io: { out: (s: string) => void; err: (s: string) => void },
  setExit: (code: number) => void,
): void {
  program
    .command('advise')
    .description(
      'read a server’s catalog and statistics (read-only, never table contents) and say which scenarios apply to which tables, with TuneLab’s answer and the command that measures it',
    )
    .requiredOption(
      '--target <url>',
      'server to read: postgres://… (pg_monitor is enough) or mysql://… (PROCESS is enough)',
    )
    .option('--api <url>', 'TuneLab API to take answers from (or TUNELAB_API_URL); nothing is submitted')
    .option('--json', 'print the report as JSON')
    .option(
      '--limit <n>',
      `tables shown per scenario (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
      limitArg,
      DEFAULT_LIMIT,
    )
    .option('--cores <n>', 'answers for hardware with this many cores (default: this machine)', positive)
    .option('--memory-gb <n>', 'answers for hardware with this much memory (default: this machine)', positive)
    .addOption(
      new Option(
        '--storage <kind>',
        'answers for this storage kind (default: the disk of the OS temp dir; unknown: as runs that could not tell)',
      ).choices(StorageKind.options),
    )
    .addHelpText(
      'after',
      `
Exit codes:
  0  the server was read (an API that does not answer only leaves the answers out)
  1  the server refused the login or the read (no CONNECT on the database, no PROCESS)
  2  --target is not a URL, its protocol is not supported, its database does not exist; --api is not http(s)
  3  the server does not answer`,
    )
    .action(async (opts: AdviseOptions) => {
      try {
        const report = await advise(opts.target!, {
          api: opts.api ?? config.apiUrl,
          limit: opts.limit,
          hardware: () => hardwareOf(opts),
          scenariosDir: path.resolve(config.cwd, config.scenariosDir),
        });
        io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : renderAdvice(report));
      } catch (e) {
        if (!(e instanceof AdviseError)) throw e;
        io.err(`tunelab: ${e.message}\n`);
        setExit(e.exitCode);
      }
    });
}
