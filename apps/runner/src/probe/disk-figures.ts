import type { MeasuredHardware } from '@tunelab/contracts';

/** What a disk probe (fio or the runner's own) measures, with notes on how. */
export type DiskFigures = Pick<
  MeasuredHardware,
  'fsyncP50Us' | 'fsyncP99Us' | 'fsyncSamples' | 'readIopsQd1' | 'readIopsQd16' | 'seqWriteMBps' | 'windows'
> & { notes: string[] };

/** Wraps a command line (a resource envelope's `wrap`: the probe's child process then runs inside its cgroup). */
export type Wrap = (argv: readonly string[]) => string[];
