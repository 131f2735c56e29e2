/** `tunelab validate [key]`: checks one scenario folder, or all of them (exit 2 when one is invalid). */
import path from 'node:path';
import type { Command } from 'commander';
import { formatScenarioIssue } from '@tunelab/contracts';
import { listScenarioDirs, loadScenario, ScenarioError } from '@tunelab/scenarios';
import { CliError, EXIT } from '../exit-codes.ts';
import type { CommandContext } from './context.ts';

export function validateCommand(program: Command, { config, io, setExit }: CommandContext): void {
  program
    .command('validate')
    .description('validate one scenario folder, or all of them')
    .argument('[key]', 'scenario key (folder name); all when omitted')
    .action(async (key?: string) => {
      const dirs = key ? [path.join(config.scenariosDir, key)] : await listScenarioDirs(config.scenariosDir);
      if (key && !(await listScenarioDirs(config.scenariosDir)).includes(dirs[0]!)) {
        throw new CliError(`no scenario "${key}" in ${config.scenariosDir}`, EXIT.USAGE);
      }
      let bad = 0;
      for (const dir of dirs) {
        try {
          const s = await loadScenario(dir);
          io.out(`ok       ${s.key} ${s.version}\n`);
        } catch (e) {
          if (!(e instanceof ScenarioError)) throw e;
          bad++;
          io.out(`invalid  ${path.basename(dir)}\n${e.issues.map((i) => `  ${formatScenarioIssue(i)}`).join('\n')}\n`);
        }
      }
      if (bad) setExit(EXIT.USAGE);
    });
}
