/**
 * The CLI's commands, in `--help` order: one module each (commands/<name>.ts). A new command is a
 * new file exporting a `CommandModule` and one entry here.
 */
import { adviseCommand } from './advise.ts';
import { agentCommand } from './agent.ts';
import { cleanupCommand } from './cleanup.ts';
import type { CommandModule } from './context.ts';
import { probeCommand } from './probe.ts';
import { runCommand } from './run.ts';
import { scenariosCommand } from './scenarios.ts';
import { serversCommand } from './servers.ts';
import { spoolCommand } from './spool.ts';
import { submitCommand } from './submit.ts';
import { validateCommand } from './validate.ts';

export const COMMANDS: readonly CommandModule[] = [
  scenariosCommand,
  validateCommand,
  runCommand,
  cleanupCommand,
  submitCommand,
  spoolCommand,
  serversCommand,
  agentCommand,
  probeCommand,
  adviseCommand,
];
