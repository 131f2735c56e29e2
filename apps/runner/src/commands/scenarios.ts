/** `tunelab scenarios [--json]`: the scenario folders with their versions. */
import path from 'node:path';
import type { Command } from 'commander';
import { listScenarioDirs, loadScenario } from '@tunelab/scenarios';
import type { CommandContext } from './context.ts';

export function scenariosCommand(program: Command, { config, io }: CommandContext): void {
  program
    .command('scenarios')
    .description('list the scenarios with their versions')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows: { key: string; version: string; title: string; error?: string }[] = [];
      for (const dir of await listScenarioDirs(config.scenariosDir)) {
        try {
          const s = await loadScenario(dir);
          rows.push({ key: s.key, version: s.version, title: s.doc.title });
        } catch (e) {
          rows.push({ key: path.basename(dir), version: '(invalid)', title: '', error: (e as Error).message });
        }
      }
      if (opts.json) io.out(`${JSON.stringify(rows, null, 2)}\n`);
      else
        for (const r of rows)
          io.out(`${r.key.padEnd(28)} ${r.version.slice(0, 12).padEnd(12)}  ${r.title || r.error}\n`);
    });
}
