/**
 * From an inspection to advice: per scenario of the target's engine, the tables its rule picks
 * (thresholds.ts), the parameters each table's shape implies (clamped to the scenario's declared
 * range, saying so), TuneLab's nearest answer (answers.ts) and the `tunelab run` that measures it.
 */
import { resolveParams, type ParamDef } from '@tunelab/contracts';
import type { LoadedScenario } from '@tunelab/scenarios';
import { SUPPORTED_POSTGRESQL_MAJORS as SUPPORTED_MAJORS } from '@tunelab/contracts';
import type { AnswerNear, AnswerQuestion, Hardware } from './answers.ts';
import { RULES } from './thresholds.ts';
import type { Inspection, InnodbTable, MysqlInspection, PgInspection, PgTable } from './types.ts';

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
export const bytes = (n: number) =>
  n >= 1024 ** 3
    ? `${(n / 1024 ** 3).toFixed(1)} GiB`
    : n >= MB
      ? `${(n / MB).toFixed(1)} MiB`
      : `${Math.round(n / 1024)} KiB`;
const qualified = (t: { schema: string; name: string }) => `${t.schema}.${t.name}`;

type Rule = {
  engine: 'postgresql' | 'mysql-family';
  /** The scale parameter the answer is looked up by. */
  scale: string;
  rule: string;
  build(inspection: Inspection):
    | {
        matched: number;
        items: { table: string | null; why: string; facts: TableAdvice['facts']; params: Record<string, number> }[];
      }
    | string;
};

const pgTableFacts = (t: PgTable): TableAdvice['facts'] => ({
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
const deadShare = (t: PgTable) => t.deadTuples / Math.max(t.liveTuples + t.deadTuples, 1);

/** Per scenario key, how it applies; a scenario without one is listed as having no rule yet. */
const SCENARIO_RULES: Record<string, Rule> = {
  'vacuum-index-cleanup': {
    engine: 'postgresql',
    scale: 'rows',
    rule: `tables with an index and at least ${int(RULES.minDeadTuples)} dead tuples, ${pct(RULES.indexCleanupDeadFraction)} or more of their tuples; most dead tuples first; rows = the table's rows (reltuples)`,
    build: (i) => {
      const pg = i as PgInspection;
      return {
        matched: pg.indexedWithDeadTuples.matched,
        items: pg.indexedWithDeadTuples.tables.map((t) => ({
          table: qualified(t),
          why: `${int(t.deadTuples)} dead tuples (${pct(deadShare(t))}), ${t.indexCount} index${t.indexCount === 1 ? '' : 'es'} of ${bytes(t.indexBytes)}, table ${bytes(t.tableBytes)}`,
          facts: pgTableFacts(t),
          params: { rows: Math.round(t.rows) },
        })),
      };
    },
  },
  'vacuum-full-rewrite': {
    engine: 'postgresql',
    scale: 'rows',
    rule: `bloated tables: at least ${int(RULES.minDeadTuples)} dead tuples, ${pct(RULES.rewriteDeadFraction)} or more of their tuples; most dead tuples first; rows = live + dead tuples (the rows before the scenario's 90% delete)`,
    build: (i) => {
      const pg = i as PgInspection;
      return {
        matched: pg.bloated.matched,
        items: pg.bloated.tables.map((t) => ({
          table: qualified(t),
          why: `${int(t.deadTuples)} dead of ${int(t.liveTuples + t.deadTuples)} tuples (${pct(deadShare(t))}), table ${bytes(t.tableBytes)}`,
          facts: pgTableFacts(t),
          params: { rows: Math.round(t.liveTuples + t.deadTuples) },
        })),
      };
    },
  },
  'fillfactor-hot-updates': {
    engine: 'postgresql',
    scale: 'warehouses',
    rule: `update-heavy tables with a low HOT ratio: at least ${int(RULES.minUpdates)} updates, under ${pct(RULES.maxHotFraction)} of them HOT, fillfactor ${RULES.minFillfactor} or more; most non-HOT updates first; warehouses = table size ÷ 100 MB (a TPROC-C warehouse is about 100 MB)`,
    build: (i) => {
      const pg = i as PgInspection;
      return {
        matched: pg.hotUnfriendly.matched,
        items: pg.hotUnfriendly.tables.map((t) => ({
          table: qualified(t),
          why: `${int(t.updates)} updates, ${pct(t.hotUpdates / Math.max(t.updates, 1))} HOT${t.newPageUpdates !== null ? `, ${int(t.newPageUpdates)} to a new page` : ''}, fillfactor ${t.fillfactor}, table ${bytes(t.tableBytes)}`,
          facts: pgTableFacts(t),
          params: { warehouses: Math.max(1, Math.round(t.tableBytes / (100 * 1e6))) },
        })),
      };
    },
  },
  'recovery-init-sync': {
    engine: 'postgresql',
    scale: 'tables',
    rule: `a database with at least ${int(RULES.minRelationFiles)} relation files under recovery_init_sync_method = fsync; tables = its relations with storage (one file each at least)`,
    build: (i) => {
      const pg = i as PgInspection;
      if (pg.recoveryInitSyncMethod === null) return 'this server has no recovery_init_sync_method (PostgreSQL 14+)';
      const many = pg.relationFiles >= RULES.minRelationFiles;
      const fsync = pg.recoveryInitSyncMethod === 'fsync';
      return {
        matched: many && fsync ? 1 : 0,
        items:
          many && fsync
            ? [
                {
                  table: null,
                  why: `${int(pg.relationFiles)} relations with storage in ${pg.database}${pg.databases > 1 ? ` (${pg.databases - 1} other databases add theirs)` : ''}, recovery_init_sync_method = fsync`,
                  facts: {
                    relationFiles: pg.relationFiles,
                    databases: pg.databases,
                    recoveryInitSyncMethod: pg.recoveryInitSyncMethod,
                  },
                  params: { tables: pg.relationFiles },
                },
              ]
            : [],
      };
    },
  },
  'innodb-compression-insert': {
    engine: 'mysql-family',
    scale: 'rows',
    rule: `InnoDB tables of at least ${pct(RULES.bufferPoolFraction)} of innodb_buffer_pool_size (data + index), or already compressed; largest first; rows = the table's rows, buffer_pool_mb = the server's buffer pool`,
    build: (i) => {
      const my = i as MysqlInspection;
      const compression = (t: InnodbTable) =>
        t.keyBlockSize !== null
          ? `ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=${t.keyBlockSize}`
          : t.pageCompressed
            ? `PAGE_COMPRESSED=1 (ROW_FORMAT=${t.rowFormat.toUpperCase()})`
            : `ROW_FORMAT=${t.rowFormat.toUpperCase()}, not compressed`;
      return {
        matched: my.compressionCandidates.matched,
        items: my.compressionCandidates.tables.map((t) => ({
          table: qualified(t),
          why: `${int(t.rows)} rows, ${bytes(t.dataBytes + t.indexBytes)} (${pct((t.dataBytes + t.indexBytes) / Math.max(my.bufferPoolBytes, 1))} of the ${bytes(my.bufferPoolBytes)} buffer pool), ${compression(t)}`,
          facts: {
            rows: t.rows,
            dataBytes: t.dataBytes,
            indexBytes: t.indexBytes,
            rowFormat: t.rowFormat,
            keyBlockSize: t.keyBlockSize,
            pageCompressed: t.pageCompressed,
          },
          params: { rows: Math.round(t.rows), buffer_pool_mb: Math.round(my.bufferPoolBytes / MB) },
        })),
      };
    },
  },
};

const engineMatches = (rule: Rule['engine'], engine: Inspection['engine']) =>
  rule === 'postgresql' ? engine === 'postgresql' : engine !== 'postgresql';

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

/** The `tunelab run` for these parameters on this machine: a managed PostgreSQL of the major (or the nearest the runner installs), else the given MySQL-family target. */
function commandOf(
  key: string,
  params: Record<string, number>,
  inspection: Inspection,
  mysqlTarget: string,
): { command: string; note: string | null } {
  const parts = ['tunelab', 'run', key, ...Object.entries(params).flatMap(([k, v]) => ['--param', `${k}=${v}`])];
  if (inspection.engine !== 'postgresql') return { command: [...parts, '--target', mysqlTarget].join(' '), note: null };
  const majors = SUPPORTED_MAJORS as readonly number[];
  const major = majors.includes(inspection.major)
    ? inspection.major
    : [...majors].sort((a, b) => Math.abs(a - inspection.major) - Math.abs(b - inspection.major) || b - a)[0]!;
  return {
    command: [...parts, '--server', String(major)].join(' '),
    note:
      major === inspection.major
        ? null
        : `the runner installs PostgreSQL ${majors.join(', ')}, not ${inspection.major}: the command measures ${major}`,
  };
}

export type AdviseInput = {
  inspection: Inspection;
  scenarios: readonly LoadedScenario[];
  hardware: Hardware;
  answer: (q: AnswerQuestion) => Promise<AnswerNear>;
  /** The target a MySQL-family command names (a scratch server; the inspected one when it is local). */
  mysqlTarget: string;
};

export async function adviseFrom(input: AdviseInput): Promise<ScenarioAdvice[]> {
  const { inspection } = input;
  const out: ScenarioAdvice[] = [];
  for (const scenario of input.scenarios) {
    const { doc } = scenario;
    const rule = SCENARIO_RULES[doc.key];
    if (!doc.engines.includes(inspection.engine)) continue;
    if (!rule || !engineMatches(rule.engine, inspection.engine)) {
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
    const built = rule.build(inspection);
    const versionNote =
      inspection.engine === 'postgresql' && min && inspection.versionNum < min
        ? `needs PostgreSQL ${Math.floor(min / 10000)} or newer; this server is ${inspection.version}`
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
      const { command, note } = commandOf(doc.key, params, inspection, input.mysqlTarget);
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
