import { DropCachesStep, substituteParams } from '@tunelab/contracts';
import { dropPageCache } from '../../engines/managed-postgresql/cluster/index.ts';
import { managedCluster } from './managed.ts';
import type { StepAction } from './types.ts';

const warned = new WeakSet<object>();

/** `action: drop_caches` — page cache, dentries and inodes dropped when permitted; else noted as skipped. */
export const dropCachesAction: StepAction<'drop_caches'> = {
  action: 'drop_caches',
  schema: DropCachesStep,
  async execute(step, ctx) {
    const when =
      typeof step.when === 'boolean'
        ? step.when
        : ['true', '1', 'on'].includes(substituteParams(step.when, ctx.params));
    if (!when) return;
    const cluster = managedCluster(ctx, 'drop_caches');
    const outcome = await dropPageCache(cluster.dataDirectory);
    if (outcome.dropped) return;
    ctx.record('drop_caches_skipped', 1);
    ctx.note('drop-caches', `skipped: ${outcome.reason}`);
    if (!warned.has(cluster)) {
      warned.add(cluster);
      ctx.warn(`the page cache was not dropped before starts (${outcome.reason}); starts read warm metadata`);
    }
  },
};
