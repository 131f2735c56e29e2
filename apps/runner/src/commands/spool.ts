/** `tunelab spool list|flush`: the runs waiting for the API. */
import type { Command } from 'commander';
import { flushSpool, listSpool, QUARANTINE_DIR } from '../app/spool.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { apiFrom, type CommandContext } from './context.ts';

export function spoolCommand(program: Command, { config, io, setExit }: CommandContext): void {
  const spool = program.command('spool').description('runs waiting for the API');
  spool
    .command('list')
    .description('list spooled runs')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { runs: items, corrupt } = await listSpool(config.spoolDir);
      // A file that is not a run is reported, never a reason to hide the good ones.
      for (const c of corrupt)
        io.err(
          `${c.file}: not a run file (${c.reason.split('\n')[0]}); \`tunelab spool flush\` moves it to ${QUARANTINE_DIR}/\n`,
        );
      if (opts.json) {
        io.out(
          `${JSON.stringify(
            items.map((i) => ({
              file: i.file,
              runId: i.run.runId,
              scenario: i.run.submission.scenario.key,
              startedAt: i.run.submission.startedAt,
            })),
            null,
            2,
          )}\n`,
        );
        return;
      }
      if (!items.length) io.out(`the spool (${config.spoolDir}) has no runs\n`);
      for (const i of items)
        io.out(
          `${i.run.runId}  ${i.run.submission.scenario.key.padEnd(28)} ${i.run.submission.startedAt}  ${i.file}\n`,
        );
    });
  spool
    .command('flush')
    .description('send every spooled run; stored runs leave the spool')
    .option('--api <url>', 'TuneLab API (or TUNELAB_API_URL)')
    .option('--token <token>', 'runner token (or TUNELAB_TOKEN)')
    .action(async (opts: { api?: string; token?: string }) => {
      const api = apiFrom(opts, config);
      if (!api) throw new CliError('spool flush needs --api/TUNELAB_API_URL and --token/TUNELAB_TOKEN', EXIT.USAGE);
      const { results, quarantined } = await flushSpool(config.spoolDir, {
        apiUrl: api.url,
        token: api.token,
        retries: config.submitRetries,
        baseDelayMs: config.submitBaseDelayMs,
      });
      for (const q of quarantined)
        io.err(`${q.file}: not a run file (${q.reason.split('\n')[0]}); moved to ${q.movedTo}\n`);
      for (const r of results) {
        const o = r.outcome;
        io.out(
          `${r.runId}  ${o.status === 'stored' ? (o.replay ? 'stored (replay)' : 'stored') : `${o.status}: ${o.message}`}${r.movedTo ? `; refused for good, moved to ${r.movedTo}` : ''}\n`,
        );
      }
      if (!results.length) io.out('nothing to flush\n');
      if (quarantined.length > 0 || results.some((r) => r.outcome.status !== 'stored')) setExit(EXIT.NOT_STORED);
    });
}
