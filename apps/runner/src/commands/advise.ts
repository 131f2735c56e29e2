/** `tunelab advise --target URL`: reads a database read-only and says which scenarios apply to its tables (advise/). */
import type { Command } from 'commander';
import { addAdviseCommand } from '../advise/command.ts';
import type { CommandContext } from './context.ts';

export function adviseCommand(program: Command, { config, io, setExit }: CommandContext): void {
  addAdviseCommand(program, config, io, setExit);
}
