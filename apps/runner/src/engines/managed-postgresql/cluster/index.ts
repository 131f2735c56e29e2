/** Throwaway PostgreSQL clusters the runner creates, owns and removes; see README.md. */
export { findServerBinaries, type ServerBinaries } from './binaries.ts';
export { createManagedCluster } from './cluster.ts';
export { analyzeStartup } from './startup-log.ts';
export { censusDataDir, fileSystemOf, kernelRelease, dropPageCache } from './datadir.ts';
export { isRoot } from './process.ts';
