import { DataDirCensusStep } from '@tunelab/contracts';
import { censusDataDir, fileSystemOf, kernelRelease } from '../../engines/managed-postgresql/cluster/index.ts';
import { lastFileCount, managedCluster } from './managed.ts';
import type { StepAction } from './types.ts';

const described = new WeakSet<object>();

/** `action: data_dir_census` — files and bytes in the data directory; its file system and the kernel once per run. */
export const dataDirCensusAction: StepAction<'data_dir_census'> = {
  action: 'data_dir_census',
  schema: DataDirCensusStep,
  async execute(_step, ctx) {
    const cluster = managedCluster(ctx, 'data_dir_census');
    const census = await censusDataDir(cluster.dataDirectory);
    lastFileCount.set(cluster, census.files);
    ctx.record('datadir_files', census.files);
    ctx.record('datadir_bytes', census.bytes);
    if (!described.has(cluster)) {
      described.add(cluster);
      const fs = await fileSystemOf(cluster.dataDirectory);
      ctx.note(
        'data-directory',
        `${cluster.dataDirectory}: file system ${fs.type}${fs.source ? ` on ${fs.source}` : ''}; kernel ${kernelRelease()}; server ${cluster.serverVersion}`,
      );
    }
  },
};
