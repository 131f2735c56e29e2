import type { ManagedCluster } from '../../engines/driver.ts';
import { UsageError } from '../../errors.ts';
import type { ActionContext } from './types.ts';

/** The managed cluster of this run, for the actions that crash, start or inspect it (any managed provider). */
export function managedCluster(ctx: ActionContext, action: string): ManagedCluster {
  const cluster = ctx.target.cluster;
  if (cluster) return cluster;
  throw new UsageError(
    `step action ${action} needs a server the runner manages (scenario.yaml target: { managed: postgresql }, or --server MAJOR); this run's target is a server given with --target`,
  );
}

/** Data-directory files last counted per cluster (start timeouts scale with them). */
export const lastFileCount = new WeakMap<ManagedCluster, number>();
