/**
 * Stage 3 — probe: the server (engine, version, settings the article used, extensions) and this
 * machine's hardware. A server that cannot run the scenario fails here, before the fixture.
 */
import {
  ENGINE_FACTS,
  ownValue,
  releaseOfVersionNum,
  versionNeeded,
  type DatabaseEnvironment,
  type HardwareSpec,
  type Variant,
} from '@tunelab/contracts';
import { engineDefault } from '@tunelab/answers';
import { UsageError } from '../errors.ts';
import { probeHardware } from '../probe/hardware.ts';
import type { Connection } from './connect.ts';
import { changeGlobals } from './globals.ts';
import { metricNeeds } from './metrics/index.ts';
import type { RunLog } from './run-log.ts';
import type { RunPlan } from './plan.ts';

export type Probed = {
  database: DatabaseEnvironment;
  hardware: HardwareSpec;
  /** Relations observed before and after every unit, and whether pgstattuple is read. */
  relations: string[];
  tupleStats: boolean;
  extensions: string[];
  /** The variants that run on this engine (a variant may declare `engines`). */
  variants: Variant[];
  /** The server's data directory when it is on this machine and readable (the noise probe writes beside it). */
  dataDirectory: string | null;
};

export async function probe(
  plan: RunPlan,
  conn: Connection,
  log: RunLog,
  storage?: HardwareSpec['storage']['kind'],
): Promise<Probed> {
  const { doc } = plan;
  const { admin, handle } = conn;
  const env = await admin.environment();
  if (!doc.engines.includes(env.engine))
    throw new UsageError(`scenario ${doc.key} runs on ${doc.engines.join(', ')}; the target is ${env.engine}`);
  if (doc.requires.minServerVersionNum && env.serverVersionNum < doc.requires.minServerVersionNum) {
    throw new UsageError(
      `scenario ${doc.key} ${versionNeeded(env.engine, doc.requires.minServerVersionNum)}; the target runs ${ENGINE_FACTS[env.engine].name} ${releaseOfVersionNum(env.engine, env.serverVersionNum)}`,
    );
  }
  const { serverVersionNum: _num, ...database } = env;
  for (const [k, v] of Object.entries(doc.settings.expect)) {
    const actual = ownValue(database.settings, k);
    if (actual !== undefined && normalizeSetting(actual) === normalizeSetting(String(v))) continue;
    // Not in the recorded settings: the server runs its default, named where it is known (and a
    // default equal to the article's value is no difference).
    const fallback = engineDefault(env.engine, k);
    if (actual === undefined && fallback != null && normalizeSetting(fallback) === normalizeSetting(String(v)))
      continue;
    const shown = actual ?? `${fallback ?? 'its default'} (the default)`;
    log.warn(`server setting ${k} is ${shown} here; the published run used ${v}`);
  }
  conn.globals = await changeGlobals(admin, doc.settings.global, plan.params, env.engine);
  const globals = conn.globals;
  if (globals) {
    const changed = Object.entries(globals.applied).map(([k, v]) => `${k} ${globals.previous[k]} → ${v}`);
    log.notes.push({
      kind: 'global-settings',
      text: `changed for this run and restored at its end: ${changed.join(', ')}`,
    });
    // The environment records what the run measured under, not what it found.
    Object.assign(database.settings, globals.applied);
  }
  const variants = doc.variants.filter((v) => !v.engines || v.engines.includes(env.engine));
  for (const v of doc.variants.filter((x) => !variants.includes(x))) {
    log.notes.push({
      kind: 'variant-skipped',
      text: `variant ${v.key} runs on ${v.engines!.join(', ')} only; the target is ${env.engine}`,
    });
    log.warn(`variant ${v.key} skipped: it runs on ${v.engines!.join(', ')} only`);
  }
  if (variants.length === 0) throw new UsageError(`no variant of ${doc.key} runs on ${env.engine}`);
  const local = handle.driver.isLocal(handle.url);
  const dataDirectory = local ? await admin.dataDirectory() : null;
  if (local && !dataDirectory)
    log.warn('data_directory is not readable by this database user; storage kind comes from --storage only');
  const hw = await probeHardware({
    dataDirectory,
    ...(storage ? { storageOverride: storage } : {}),
    ...(handle.envelope ? { envelope: handle.envelope } : {}),
  });
  if (handle.envelope)
    log.notes.push({
      kind: 'envelope',
      text: `the server ran inside a resource envelope: ${handle.envelope.record.description}; answers drawn from this run are for emulated conditions`,
    });
  hw.warnings.forEach((w) => log.warn(w));
  hw.notes.forEach((text) => log.notes.push({ kind: 'storage-probe', text }));

  const needs = metricNeeds(doc.metrics);
  const extensions = [...new Set([...doc.requires.extensions, ...needs.extensions])];
  for (const ext of extensions) {
    if (!(await admin.hasExtension(ext)))
      throw new UsageError(`scenario ${doc.key} needs the ${ext} extension, which this server does not have`);
  }
  return {
    database,
    hardware: hw.spec,
    relations: needs.relations,
    tupleStats: needs.tupleStats,
    extensions,
    variants,
    dataDirectory,
  };
}

function normalizeSetting(v: string): string {
  return v
    .trim()
    .toLowerCase()
    .replace(/^(on|true|yes|1)$/, 'on')
    .replace(/^(off|false|no|0)$/, 'off');
}
