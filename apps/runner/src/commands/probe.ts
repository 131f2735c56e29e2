/** `tunelab probe`: measures the disk and the CPU and derives the storage tier (probe/probe-command.ts). */
import type { Command } from 'commander';
import { addProbeCommand } from '../probe/probe-command.ts';
import type { CommandContext } from './context.ts';

export function probeCommand(program: Command, { io, config }: CommandContext): void {
  addProbeCommand(program, io, config);
}
