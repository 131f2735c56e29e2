import type { MeasuredHardware } from '@tunelab/contracts';

/** What a disk probe (fio or the runner's own) measures, with notes on how. */
export type DiskFigures = Pick<
  MeasuredHardware,
  'fsyncP50Us' | 'fsyncP99Us' | 'fsyncSamples' | 'readIopsQd1' | 'readIopsQd16' | 'seqWriteMBps'
> & { notes: string[] };
