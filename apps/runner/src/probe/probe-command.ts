import { Option, type Command } from 'commander';
import {
  STORAGE_TIER_LABELS,
  storageTierOf,
  storageTierReason,
  type MeasuredHardware,
  type ProbeReport,
  type StorageTier,
} from '@tunelab/contracts';
import { driverFor } from '../engines/index.ts';
import { redactTarget } from '../engine/connect.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import type { RunnerConfig } from '../config.ts';
import { probeHardware } from './hardware.ts';
import { tierOfProbe } from './tier-history.ts';
import { measureHardware, ProbeDirError, type DiskTool } from './measure.ts';

const PROBE_HELP = `
Measures the disk under a directory and this CPU, as every run does before it starts (on the
filesystem of the server's data directory): fsync latency of 8 kB writes (write + fdatasync, p50
and p99), random 8 kB reads per second with O_DIRECT at queue depth 1 and 16, sequential write
MB/s, and a single-core CPU score. It writes one temporary 64 MiB file in the directory and removes
it; about 5 s in all (each step is capped; at most ~10 s). The disk figures come from fio when it
is on PATH, else from the runner's own probe (--tool node; see apps/runner/README.md for what it
measures differently). The storage tier (NVMe-like, SSD-like, network SSD, HDD-like) follows from
the figures; its thresholds and their sources are in packages/contracts/src/measured-hardware.ts.

A busy moment does not change the tier: each disk figure is the best quartile of 5 short windows
(noisy ones measured again), and the tier moves from the one earlier probes of this filesystem
decided (TUNELAB_PROBE_HISTORY, default ~/.tunelab/probe-history.json) only when the figures are 2×
past the threshold (a slower tier: and the probe was not under load) or 3 consecutive probes agree.
TUNELAB_STORAGE_TIER=nvme-like|ssd-like|network-ssd|hdd-like sets the tier instead (an unknown
value: exit 2).

The directory: --dir DIR, else the data directory of a local --target server, else the current
directory. A directory that does not exist, is not a directory or is not writable: exit 2.`;

type ProbeFlags = { dir?: string; target?: string; tool: DiskTool; json?: boolean };

async function dataDirectoryOf(target: string): Promise<string> {
  const driver = driverFor(target);
  if (!driver.isLocal(target))
    throw new CliError(`--target ${redactTarget(target)} is not on this machine: give --dir instead`, EXIT.USAGE);
  const admin = await driver.openAdmin(target, 'tunelab-probe');
  try {
    const dir = await admin.dataDirectory();
    if (!dir)
      throw new CliError('the server does not tell this user its data directory: give --dir instead', EXIT.USAGE);
    return dir;
  } finally {
    await admin.close();
  }
}

const fmt = (x: number | null, digits = 0, unit = '') =>
  x === null ? 'not measured' : `${x.toLocaleString('en-US', { maximumFractionDigits: digits })}${unit}`;

/** The probe's figures as a two-column table for people. */
function renderProbe(dir: string, m: MeasuredHardware, tier: StorageTier | null, decided: string): string {
  const ms = (us: number | null) => (us === null ? null : us / 1000);
  const rows: [string, string][] = [
    ['directory', dir],
    ['disk measured by', m.diskTool],
    ['fsync 8 kB, p50', fmt(ms(m.fsyncP50Us), 3, ' ms')],
    ['fsync 8 kB, p99', `${fmt(ms(m.fsyncP99Us), 3, ' ms')} (${m.fsyncSamples} syncs)`],
    ['random 8 kB reads, QD 1', fmt(m.readIopsQd1, 0, ' /s')],
    ['random 8 kB reads, QD 16', fmt(m.readIopsQd16, 0, ' /s')],
    ['sequential writes', fmt(m.seqWriteMBps, 0, ' MB/s')],
    ['CPU score, one core', `${fmt(m.cpuScore, 0, ' /s')} (${m.cpuWorkload})`],
    ['storage tier', tier ? STORAGE_TIER_LABELS[tier] : 'unknown'],
    ['decided', decided],
    ['this probe', `${storageTierOf(m) ? STORAGE_TIER_LABELS[storageTierOf(m)!] : 'no tier'}: ${storageTierReason(m)}`],
    [
      'windows',
      m.windows
        ? `${m.windows.perFigure} per figure, best quartile kept; measured again: ${m.windows.retried.join(', ') || 'none'}${m.windows.cpuBusy === null ? '' : `; CPUs ${Math.round(m.windows.cpuBusy * 100)} % busy`}`
        : 'one per figure',
    ],
    [
      'took',
      `${(m.durationMs / 1000).toFixed(1)} s${m.loadAverage1m == null ? '' : `, at load average ${m.loadAverage1m} on ${m.logicalCpus ?? '?'} CPUs`}`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  return `${[...lines, ...m.notes.map((n) => `note: ${n}`)].join('\n')}\n`;
}

/** `tunelab probe [--dir DIR | --target URL] [--tool auto|fio|node] [--json]`. */
export function addProbeCommand(
  program: Command,
  io: { out: (s: string) => void; err: (s: string) => void },
  config: Pick<RunnerConfig, 'probeHistoryFile' | 'storageTier'>,
): void {
  program
    .command('probe')
    .description('measure the disk (fsync, random reads, sequential writes) and the CPU; derive the storage tier')
    .option('--dir <dir>', 'the directory whose filesystem is measured (a temporary file is written there)')
    .option('--target <url>', 'a local server: measure the filesystem of its data directory')
    .addOption(
      new Option('--tool <tool>', 'what measures the disk: fio when on PATH, else the runner')
        .choices(['auto', 'fio', 'node'])
        .default('auto'),
    )
    .option(
      '--json',
      "print JSON (the figures, the directory, the tier and the machine: what POST /v1/similar and the site's picker take)",
    )
    .addHelpText('after', PROBE_HELP)
    .action(async (opts: ProbeFlags) => {
      if (opts.dir !== undefined && opts.target !== undefined)
        throw new CliError('give --dir or --target, not both', EXIT.USAGE);
      const dir = opts.dir ?? (opts.target !== undefined ? await dataDirectoryOf(opts.target) : process.cwd());
      let m: MeasuredHardware;
      try {
        m = await measureHardware({ dir, tool: opts.tool });
      } catch (e) {
        if (e instanceof ProbeDirError) throw new CliError(`cannot probe: ${e.message}`, EXIT.USAGE);
        throw e;
      }
      const { tier, reason } = tierOfProbe(dir, m, config, (w) => io.err(`tunelab: warning: ${w}\n`));
      if (opts.json) {
        // The machine too, so that the JSON alone is a "hardware like mine" query (POST /v1/similar, the site's picker).
        const { spec } = await probeHardware({ dataDirectory: dir, measure: false });
        const report: ProbeReport = {
          directory: dir,
          tier,
          ...m,
          machine: { physicalCores: spec.physicalCores, memoryBytes: spec.memoryBytes, storageKind: spec.storage.kind },
        };
        io.out(`${JSON.stringify(report, null, 2)}\n`);
      } else io.out(renderProbe(dir, m, tier, reason));
    });
}
