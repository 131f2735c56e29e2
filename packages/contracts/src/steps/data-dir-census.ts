import { z } from 'zod';

/**
 * `action: data_dir_census` (managed cluster): counts the regular files and their bytes in the
 * data directory — what the startup sync walks — and records `datadir_files` and
 * `datadir_bytes`; notes the file system type of the data directory and the kernel once per run.
 */
export const DataDirCensusStep = z.strictObject({
  action: z.literal('data_dir_census'),
});
export type DataDirCensusStep = z.infer<typeof DataDirCensusStep>;
