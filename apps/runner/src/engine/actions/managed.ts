import { UsageError } from '../../errors.ts';
import { ManagedPostgresCluster } from '../../drivers/managed-cluster/index.ts';
import type { ActionContext } from './types.ts';

/** The managed PostgreSQL cluster of this run, for the actions that crash, start or inspect it. */
export function managedCluster(ctx: ActionContext, action: string): ManagedPostgresCluster {
  const cluster = ctx.target.cluster;
  if (cluster instanceof ManagedPostgresCluster) return cluster;
  throw new UsageError(
    `step action ${action} needs a managed PostgreSQL cluster (scenario.yaml target: { managed: postgresql }); this run's target is ${cluster ? 'another kind of managed cluster' : 'a server given with --target'}`,
  );
}

/** Data-directory files last counted per cluster (start timeouts scale with them). */
export const lastFileCount = new WeakMap<ManagedPostgresCluster, number>();
