/** `tunelab submit <run.json>`: sends a run file to the API (kept in the spool while the API is away). */
import path from 'node:path';
import type { Command } from 'commander';
import { deliver } from '../app/deliver.ts';
import { readRunFile } from '../app/run-file.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { apiFrom, type CommandContext } from './context.ts';

export function submitCommand(program: Command, { config, io, setExit }: CommandContext): void {
  program
    .command('submit')
    .description('submit a run file to the API (spooled if the API is unreachable)')
    .argument('<run.json>', 'run file written by `tunelab run`')
    .option('--api <url>', 'TuneLab API (or TUNELAB_API_URL)')
    .option('--token <token>', 'runner token (or TUNELAB_TOKEN)')
    .action(async (file: string, opts: { api?: string; token?: string }) => {
      const run = await readRunFile(path.resolve(config.cwd, file));
      const api = apiFrom(opts, config);
      if (!api) throw new CliError('submit needs --api/TUNELAB_API_URL and --token/TUNELAB_TOKEN', EXIT.USAGE);
      setExit((await deliver(run, config, api, (l) => io.err(`${l}\n`), path.resolve(config.cwd, file))).code);
    });
}
