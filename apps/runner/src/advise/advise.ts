/**
 * From an inspection to advice: the interpreter of the scenarios' `advise:` blocks (contracts'
 * advise.ts, scenarios/README.md). Per scenario of the target's engine, the tables its block picks
 * (a table set the inspector filled, or the database), the parameters each table's shape implies (clamped to the scenario's declared
 * range, saying so), TuneLab's nearest answer (answers.ts) and the `tunelab run` that measures it.
 */
import {
  ADVISE_TABLE_SETS,
  COMPRESSIBLE_TABLE_FACTS,
  ENGINE_FACTS,
  HEAP_TABLE_FACTS,
  adviseField,
  factsOfSet,
  majorOfRelease,
  parseAdviseTemplate,
  renderAdviseTemplate,
  resolveParams,
  releaseOfVersionNum,
  serverForCommand,
  versionNeeded,
  type AdviseSetRequests,
  type AdviseSpec,
  type AdviseTableSet,
  type EngineName,
  type FactValue,
  type ParamDef,
} from '@tunelab/contracts';
import { runCommandLine } from '@tunelab/contracts/run-command';
import type { LoadedScenario } from '@tunelab/scenarios';
import type { CompressibleTable, HeapTable, Inspection, ServerFacts } from '../engines/catalog.ts';
import type { AnswerNear, AnswerQuestion, Hardware } from './answers.ts';
import { AdviseError } from './errors.ts';

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

const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** What a scenario's advise block picked: the items, and how many matched; a sentence when it cannot apply; null when the server lacks what it reads. */
type Built =
  | {
      matched: number;
      items: { table: string | null; why: string; facts: TableAdvice['facts']; params: Record<string, number> }[];
    }
  | string
  | null;

type Lookup = (name: string) => FactValue;

/** The server's facts and those derived from them (contracts' DERIVED_FACTS.server). */
function serverLookup(server: ServerFacts): Lookup {
  const facts: Readonly<Record<string, FactValue>> = server;
  const databases = server.databases;
  const derived: Record<string, FactValue> = {
    otherDatabases: databases !== undefined && databases > 1 ? databases - 1 : null,
  };
  return (name) =>
    Object.hasOwn(facts, name) ? facts[name] : Object.hasOwn(derived, name) ? derived[name] : undefined;
}

/** A table's facts, those derived from them (contracts' DERIVED_FACTS) and the server's. */
function tableLookup(set: AdviseTableSet, table: HeapTable | CompressibleTable, server: ServerFacts): Lookup {
  const facts: Readonly<Record<string, FactValue>> = table;
  const derived: Record<string, FactValue> = {};
  if ('deadTuples' in table) {
    derived.tuples = table.liveTuples + table.deadTuples;
    derived.deadShare = table.deadTuples / Math.max(table.liveTuples + table.deadTuples, 1);
    derived.hotShare = table.hotUpdates / Math.max(table.updates, 1);
  } else {
    derived.sizeBytes = table.dataBytes + table.indexBytes;
    derived.bufferPoolShare = (table.dataBytes + table.indexBytes) / Math.max(server.bufferPoolBytes ?? 0, 1);
  }
  const rest = serverLookup(server);
  const own = new Set(factsOfSet(set));
  return (name) =>
    !own.has(name)
      ? undefined
      : Object.hasOwn(derived, name)
        ? derived[name]
        : Object.hasOwn(facts, name)
          ? facts[name]
          : rest(name);
}

/** The `tunelab run` parameters an item implies: round(fact ÷ divide), at least `at_least`; a fact without a number is left out. */
function paramsOf(spec: AdviseSpec, lookup: Lookup): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, p] of Object.entries(spec.params)) {
    const v = lookup(p.fact);
    if (typeof v !== 'number') continue;
    const n = Math.round(v / (p.divide ?? 1));
    out[name] = p.at_least !== undefined ? Math.max(p.at_least, n) : n;
  }
  return out;
}

const pick = (names: readonly string[], lookup: Lookup): TableAdvice['facts'] =>
  Object.fromEntries(names.map((n) => [n, lookup(n) ?? null]));

/** The items of a table set the inspector filled, or null when it did not fill it (its engine has no such set). */
function fromTables(spec: AdviseSpec, tables: NonNullable<AdviseSpec['tables']>, inspection: Inspection): Built {
  const set = inspection.sets[tables.set];
  if (!set) return null;
  const why = parseAdviseTemplate(spec.why);
  const kind = ADVISE_TABLE_SETS[tables.set].kind;
  return {
    matched: set.matched,
    items: set.tables.map((t) => {
      const lookup = tableLookup(tables.set, t, inspection.server);
      return {
        table: `${t.schema}.${t.name}`,
        why: renderAdviseTemplate(why, lookup),
        facts: pick(kind === 'heap' ? HEAP_TABLE_FACTS : COMPRESSIBLE_TABLE_FACTS, lookup),
        params: paramsOf(spec, lookup),
      };
    }),
  };
}

/** The database as the one item when every condition holds; a sentence for a fact the server has no value of. */
function fromDatabase(spec: AdviseSpec, database: NonNullable<AdviseSpec['database']>, server: ServerFacts): Built {
  const lookup = serverLookup(server);
  const read = [...Object.keys(database.where), ...Object.keys(database.when_null)];
  if (read.some((f) => lookup(f) === undefined)) return null;
  for (const [fact, sentence] of Object.entries(database.when_null)) if (lookup(fact) === null) return sentence;
  const holds = Object.entries(database.where).every(([fact, c]) => {
    const v = lookup(fact);
    return c.min !== undefined ? typeof v === 'number' && v >= c.min : v === c.equals;
  });
  return {
    matched: holds ? 1 : 0,
    items: holds
      ? [
          {
            table: null,
            why: renderAdviseTemplate(parseAdviseTemplate(spec.why), lookup),
            facts: pick(database.facts, lookup),
            params: paramsOf(spec, lookup),
          },
        ]
      : [],
  };
}

/** What a scenario's advise block picks on this server. */
function build(spec: AdviseSpec, inspection: Inspection): Built {
  if (spec.tables) return fromTables(spec, spec.tables, inspection);
  if (spec.database) return fromDatabase(spec, spec.database, inspection.server);
  return null;
}

/**
 * The table sets to ask an engine's inspector for, with their thresholds, from the advise blocks
 * of the scenarios that run on one of `engines`; two scenarios asking one set with different
 * thresholds are refused (an inspector reads each set once).
 */
export function setRequests(scenarios: readonly LoadedScenario[], engines: readonly string[]): AdviseSetRequests {
  const out: Record<string, object> = {};
  const by: Record<string, string> = {};
  for (const { doc } of scenarios) {
    const tables = doc.advise?.tables;
    if (!tables || !doc.engines.some((e) => engines.includes(e))) continue;
    const { set, ...thresholds } = tables;
    if (out[set] && JSON.stringify(out[set]) !== JSON.stringify(thresholds))
      throw new AdviseError(
        'usage',
        `scenarios ${by[set]} and ${doc.key} ask advise for the table set ${set} with different thresholds; give them the same`,
      );
    out[set] = thresholds;
    by[set] = doc.key;
  }
  return out;
}

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
 * Why the runner cannot run the scenario for this server, or null: a scenario that runs only on a
 * throwaway server the runner manages (`target: { managed: … }`) needs an engine it manages a
 * major of (a --target command would be refused).
 */
function notRunnable(doc: LoadedScenario['doc']): string | null {
  const managed = doc.target?.managed;
  if (!managed || commandMajors(doc, managed).length > 0) return null;
  const { name } = ENGINE_FACTS[managed];
  return `runs only on a throwaway ${name} server the runner manages, and the runner manages no ${name} major it accepts`;
}

/** The managed majors a command may name for the scenario: those at or above its minimum version. */
function commandMajors(doc: LoadedScenario['doc'], engine: EngineName): number[] {
  const min = doc.requires.minServerVersionNum;
  const minMajor = min ? majorOfRelease(releaseOfVersionNum(engine, min)) : 0;
  return ENGINE_FACTS[engine].managedMajors.filter((m) => m >= minMajor);
}

/**
 * The `tunelab run` for these parameters on this machine: a managed server of the inspected major
 * (or the nearest the runner installs among those the scenario accepts, saying so), else `localTarget` — the inspected server when
 * it is on this machine — or the engine's example target.
 */
function commandOf(
  doc: LoadedScenario['doc'],
  params: Record<string, number>,
  inspection: Inspection,
  localTarget: string | null,
): { command: string; note: string | null } {
  const facts = ENGINE_FACTS[inspection.engine];
  // A managed server of a major below the scenario's minimum is refused: pick among those it accepts.
  const majors = commandMajors(doc, inspection.engine);
  const nearest = majors.length
    ? [...majors].sort((a, b) => Math.abs(a - inspection.major) - Math.abs(b - inspection.major) || b - a)[0]!
    : null;
  const server =
    nearest !== null
      ? { server: majors.includes(inspection.major) ? inspection.major : nearest }
      : serverForCommand(inspection.engine, inspection.major);
  const command = runCommandLine({
    scenario: doc.key,
    params,
    // A scenario on a managed server takes no --target: the runner makes its own.
    server: 'target' in server && localTarget && !doc.target ? { target: localTarget } : server,
  });
  return {
    command,
    note:
      'server' in server && server.server !== inspection.major
        ? `the runner installs ${facts.name} ${majors.join(', ')}, not ${inspection.major}: the command measures ${server.server}`
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
    const spec = doc.advise;
    if (!doc.engines.includes(inspection.engine)) continue;
    const built = spec ? build(spec, inspection) : null;
    if (!spec || built === null) {
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
        ? `${versionNeeded(inspection.engine, min)}; this server is ${inspection.version}`
        : notRunnable(doc);
    const rule = renderAdviseTemplate(parseAdviseTemplate(spec.rule), (n) => adviseField(spec, n));
    if (typeof built === 'string' || versionNote) {
      out.push({
        key: doc.key,
        title: doc.title,
        rule,
        notApplicable: versionNote ?? (built as string),
        matched: 0,
        tables: [],
      });
      continue;
    }
    const tables: TableAdvice[] = [];
    for (const item of built.items) {
      const { params, beyond } = withinRange(doc.key, doc.params, item.params);
      const { command, note } = commandOf(doc, params, inspection, input.localTarget);
      const answer = await input.answer({
        scenario: doc.key,
        engine: inspection.engine,
        major: inspection.major,
        param: spec.scale,
        value: item.params[spec.scale] ?? 0,
        hardware: input.hardware,
        declaredScale: doc.scale?.param === spec.scale,
        params: Object.fromEntries(Object.entries(params).filter(([k]) => k !== spec.scale)),
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
    out.push({ key: doc.key, title: doc.title, rule, notApplicable: null, matched: built.matched, tables });
  }
  return out;
}
