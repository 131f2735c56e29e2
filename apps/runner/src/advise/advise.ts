/**
 * From an inspection to advice: per scenario of the target's engine, the tables its rule picks
 * (thresholds.ts), the parameters each table's shape implies (clamped to the scenario's declared
 * range, saying so), TuneLab's nearest answer (answers.ts) and the `tunelab run` that measures it.
 */
import { ENGINE_FACTS, resolveParams, serverForCommand, type ParamDef } from '@tunelab/contracts';
import { runCommandLine } from '@tunelab/contracts/run-command';
import type { LoadedScenario } from '@tunelab/scenarios';
import type { CompressibleTable, HeapTable, Inspection } from '../engines/catalog.ts';
import type { AnswerNear, AnswerQuestion, Hardware } from './answers.ts';
import { RULES } from './thresholds.ts';

export type TableAdvice = {
  /** schema.table, or null for a scenario about the whole database (recovery-init-sync). */
  table: string | null;
  /** What the rule saw, in words: "12,000 dead tuples (60% of 20,000), 2 indexes". */
  why: string;
  facts: Record<string, number | string | boolean | null>;
  /** The scenario parameters this table implies, inside the scenario's declared range. */
  params: Record<string, number>;
  /** Where the table's value was beyond the declared range and the command uses the bound instead. */
  beyondRange: string[];
  answer: AnswerNear;
  /** The `tunelab run` that measures it on this machine. */
  command: string;
};

export type ScenarioAdvice = {
  key: string;
  title: string;
  /** The documented rule, in words. */
  rule: string;
  /** Why it does not apply to this server (version, setting), else null. */
  notApplicable: string | null;
  /** Tables the rule matched, of which `tables` are the first by its ranking. */
  matched: number;
  tables: TableAdvice[];
};

const MB = 1024 * 1024;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (n: number) => `${Math.round(n * 100)}%`;
const bytes = (n: number) =>
  n >= 1024 ** 3
    ? `${(n / 1024 ** 3).toFixed(1)} GiB`
    : n >= MB
      ? `${(n / MB).toFixed(1)} MiB`
      : `${Math.round(n / 1024)} KiB`;
const qualified = (t: { schema: string; name: string }) => `${t.schema}.${t.name}`;

/**
 * How advise applies a scenario: from the table sets and server facts an engine's inspector gave
 * (engines/catalog.ts), never from the engine's name. `build` returns a sentence when the server
 * has what the rule reads but the rule cannot apply, and null or undefined when the server lacks it (then the
 * scenario is not listed: its engine is another).
 */
type Rule = {
  /** The scale parameter the answer is looked up by. */
  scale: string;
  rule: string;
  build(inspection: Inspection):
    | {
        matched: number;
        items: { table: string | null; why: string; facts: TableAdvice['facts']; params: Record<string, number> }[];
      }
    | string
    | null
    | undefined;
};

const heapFacts = (t: HeapTable): TableAdvice['facts'] => ({
  rows: t.rows,
  liveTuples: t.liveTuples,
  deadTuples: t.deadTuples,
  tableBytes: t.tableBytes,
  indexBytes: t.indexBytes,
  indexCount: t.indexCount,
  fillfactor: t.fillfactor,
  updates: t.updates,
  hotUpdates: t.hotUpdates,
  newPageUpdates: t.newPageUpdates,
});
const deadShare = (t: HeapTable) => t.deadTuples / Math.max(t.liveTuples + t.deadTuples, 1);

/** Per scenario key, how it applies; a scenario without one is listed as having no rule yet. */
const SCENARIO_RULES: Record<string, Rule> = {
  'vacuum-index-cleanup': {
    scale: 'rows',
    rule: `tables with an index and at least ${int(RULES.minDeadTuples)} dead tuples, ${pct(RULES.indexCleanupDeadFraction)} or more of their tuples; most dead tuples first; rows = the table's rows (reltuples)`,
    build: ({ sets: { indexedWithDeadTuples: set } }) =>
      set && {
        matched: set.matched,
        items: set.tables.map((t) => ({
          table: qualified(t),
          why: `${int(t.deadTuples)} dead tuples (${pct(deadShare(t))}), ${t.indexCount} index${t.indexCount === 1 ? '' : 'es'} of ${bytes(t.indexBytes)}, table ${bytes(t.tableBytes)}`,
          facts: heapFacts(t),
          params: { rows: Math.round(t.rows) },
        })),
      },
  },
  'vacuum-full-rewrite': {
    scale: 'rows',
    rule: `bloated tables: at least ${int(RULES.minDeadTuples)} dead tuples, ${pct(RULES.rewriteDeadFraction)} or more of their tuples; most dead tuples first; rows = live + dead tuples (the rows before the scenario's 90% delete)`,
    build: ({ sets: { bloated: set } }) =>
      set && {
        matched: set.matched,
        items: set.tables.map((t) => ({
          table: qualified(t),
          why: `${int(t.deadTuples)} dead of ${int(t.liveTuples + t.deadTuples)} tuples (${pct(deadShare(t))}), table ${bytes(t.tableBytes)}`,
          facts: heapFacts(t),
          params: { rows: Math.round(t.liveTuples + t.deadTuples) },
        })),
      },
  },
  'fillfactor-hot-updates': {
    scale: 'warehouses',
    rule: `update-heavy tables with a low HOT ratio: at least ${int(RULES.minUpdates)} updates, under ${pct(RULES.maxHotFraction)} of them HOT, fillfactor ${RULES.minFillfactor} or more; most non-HOT updates first; warehouses = table size ÷ 100 MB (a TPROC-C warehouse is about 100 MB)`,
    build: ({ sets: { hotUnfriendly: set } }) =>
      set && {
        matched: set.matched,
        items: set.tables.map((t) => ({
          table: qualified(t),
          why: `${int(t.updates)} updates, ${pct(t.hotUpdates / Math.max(t.updates, 1))} HOT${t.newPageUpdates !== null ? `, ${int(t.newPageUpdates)} to a new page` : ''}, fillfactor ${t.fillfactor}, table ${bytes(t.tableBytes)}`,
          facts: heapFacts(t),
          params: { warehouses: Math.max(1, Math.round(t.tableBytes / (100 * 1e6))) },
        })),
      },
  },
  'recovery-init-sync': {
    scale: 'tables',
    rule: `a database with at least ${int(RULES.minRelationFiles)} relation files under recovery_init_sync_method = fsync; tables = its relations with storage (one file each at least)`,
    build: ({ server }) => {
      const { relationFiles, recoveryInitSyncMethod: method } = server;
      if (relationFiles === undefined || method === undefined) return null;
      if (method === null) return 'this server has no recovery_init_sync_method (PostgreSQL 14+)';
      const many = relationFiles >= RULES.minRelationFiles;
      const fsync = method === 'fsync';
      return {
        matched: many && fsync ? 1 : 0,
        items:
          many && fsync
            ? [
                {
                  table: null,
                  why: `${int(relationFiles)} relations with storage in ${server.database ?? 'the database'}${(server.databases ?? 1) > 1 ? ` (${server.databases! - 1} other databases add theirs)` : ''}, recovery_init_sync_method = fsync`,
                  facts: { relationFiles, databases: server.databases ?? null, recoveryInitSyncMethod: method },
                  params: { tables: relationFiles },
                },
              ]
            : [],
      };
    },
  },
  'innodb-compression-insert': {
    scale: 'rows',
    rule: `InnoDB tables of at least ${pct(RULES.bufferPoolFraction)} of innodb_buffer_pool_size (data + index), or already compressed; largest first; rows = the table's rows, buffer_pool_mb = the server's buffer pool`,
    build: ({ sets: { compressionCandidates: set }, server }) => {
      if (!set) return null;
      const pool = server.bufferPoolBytes ?? 0;
      const compression = (t: CompressibleTable) =>
        t.keyBlockSize !== null
          ? `ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=${t.keyBlockSize}`
          : t.pageCompressed
            ? `PAGE_COMPRESSED=1 (ROW_FORMAT=${t.rowFormat.toUpperCase()})`
            : `ROW_FORMAT=${t.rowFormat.toUpperCase()}, not compressed`;
      return {
        matched: set.matched,
        items: set.tables.map((t) => ({
          table: qualified(t),
          why: `${int(t.rows)} rows, ${bytes(t.dataBytes + t.indexBytes)} (${pct((t.dataBytes + t.indexBytes) / Math.max(pool, 1))} of the ${bytes(pool)} buffer pool), ${compression(t)}`,
          facts: {
            rows: t.rows,
            dataBytes: t.dataBytes,
            indexBytes: t.indexBytes,
            rowFormat: t.rowFormat,
            keyBlockSize: t.keyBlockSize,
            pageCompressed: t.pageCompressed,
          },
          params: { rows: Math.round(t.rows), buffer_pool_mb: Math.round(pool / MB) },
        })),
      };
    },
  },
};

/** Clamps each value into its parameter's declared range, saying where it did. */
function withinRange(
  key: string,
  defs: Record<string, ParamDef>,
  params: Record<string, number>,
): { params: Record<string, number>; beyond: string[] } {
  const out: Record<string, number> = {};
  const beyond: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    const def = defs[name];
    if (!def || (def.type !== 'integer' && def.type !== 'number')) continue;
    let v = value;
    if (def.max !== undefined && v > def.max) {
      beyond.push(
        `${name} ${int(value)} is beyond ${key}'s range (at most ${int(def.max)}): the command measures ${int(def.max)}`,
      );
      v = def.max;
    }
    if (def.min !== undefined && v < def.min) {
      beyond.push(
        `${name} ${int(value)} is below ${key}'s range (at least ${int(def.min)}): the command measures ${int(def.min)}`,
      );
      v = def.min;
    }
    out[name] = v;
  }
  const check = resolveParams(defs, Object.fromEntries(Object.entries(out).map(([k, v]) => [k, String(v)])));
  if (!check.ok) throw new Error(`advise built parameters ${key} refuses: ${check.errors.join('; ')}`);
  return { params: out, beyond };
}

/**
 * The `tunelab run` for these parameters on this machine: a managed server of the inspected major
 * (or the nearest the runner installs, saying so), else `localTarget` — the inspected server when
 * it is on this machine — or the engine's example target.
 */
function commandOf(
  key: string,
  params: Record<string, number>,
  inspection: Inspection,
  localTarget: string | null,
): { command: string; note: string | null } {
  const server = serverForCommand(inspection.engine, inspection.major, { nearest: true });
  const command = runCommandLine({
    scenario: key,
    params,
    server: 'target' in server && localTarget ? { target: localTarget } : server,
  });
  const facts = ENGINE_FACTS[inspection.engine];
  return {
    command,
    note:
      'server' in server && server.server !== inspection.major
        ? `the runner installs ${facts.name} ${facts.managedMajors.join(', ')}, not ${inspection.major}: the command measures ${server.server}`
        : null,
  };
}

export type AdviseInput = {
  inspection: Inspection;
  scenarios: readonly LoadedScenario[];
  hardware: Hardware;
  answer: (q: AnswerQuestion) => Promise<AnswerNear>;
  /** The target a command for a server the runner does not manage names: the inspected one when it is local, else null (the engine's example). */
  localTarget: string | null;
};

export async function adviseFrom(input: AdviseInput): Promise<ScenarioAdvice[]> {
  const { inspection } = input;
  const out: ScenarioAdvice[] = [];
  for (const scenario of input.scenarios) {
    const { doc } = scenario;
    const rule = SCENARIO_RULES[doc.key];
    if (!doc.engines.includes(inspection.engine)) continue;
    const built = rule?.build(inspection);
    if (!rule || built === null || built === undefined) {
      out.push({
        key: doc.key,
        title: doc.title,
        rule: 'advise has no rule for this scenario yet',
        notApplicable: 'no rule',
        matched: 0,
        tables: [],
      });
      continue;
    }
    const min = doc.requires.minServerVersionNum;
    const versionNote =
      min && inspection.versionNum < min
        ? `needs ${ENGINE_FACTS[inspection.engine].name} ${Math.floor(min / 10000)} or newer; this server is ${inspection.version}`
        : null;
    if (typeof built === 'string' || versionNote) {
      out.push({
        key: doc.key,
        title: doc.title,
        rule: rule.rule,
        notApplicable: versionNote ?? (built as string),
        matched: 0,
        tables: [],
      });
      continue;
    }
    const tables: TableAdvice[] = [];
    for (const item of built.items) {
      const { params, beyond } = withinRange(doc.key, doc.params, item.params);
      const { command, note } = commandOf(doc.key, params, inspection, input.localTarget);
      const answer = await input.answer({
        scenario: doc.key,
        engine: inspection.engine,
        major: inspection.major,
        param: rule.scale,
        value: item.params[rule.scale] ?? 0,
        hardware: input.hardware,
        declaredScale: doc.scale?.param === rule.scale,
        params: Object.fromEntries(Object.entries(params).filter(([k]) => k !== rule.scale)),
      });
      tables.push({
        table: item.table,
        why: item.why,
        facts: item.facts,
        params,
        beyondRange: note ? [...beyond, note] : beyond,
        answer,
        command,
      });
    }
    out.push({ key: doc.key, title: doc.title, rule: rule.rule, notApplicable: null, matched: built.matched, tables });
  }
  return out;
}
