import { z } from 'zod';
import { boundedString } from './primitives.ts';
import { paramName } from './scenario-names.ts';

/**
 * The `advise:` block of a scenario.yaml: which tables (or which database) `tunelab advise` names
 * for the scenario, the sentence it prints for each and the parameters of the `tunelab run` that
 * measures it. Declarative: a table set an engine's catalog inspector fills, with the set's
 * thresholds, or conditions on facts of the database read; text templates with placeholders; a
 * parameter is a fact, divided and rounded. Nothing is evaluated as code (scenarios/README.md).
 */

/** Facts of a table of a heap with MVCC tuples, as the inspectors read them (engines/catalog.ts HeapTable). */
export const HEAP_TABLE_FACTS = [
  'rows',
  'liveTuples',
  'deadTuples',
  'tableBytes',
  'indexBytes',
  'indexCount',
  'fillfactor',
  'updates',
  'hotUpdates',
  'newPageUpdates',
] as const;
/** Facts of a table whose pages may be compressed (engines/catalog.ts CompressibleTable). */
export const COMPRESSIBLE_TABLE_FACTS = [
  'rows',
  'dataBytes',
  'indexBytes',
  'rowFormat',
  'keyBlockSize',
  'pageCompressed',
] as const;
/** Facts of the server and database read (engines/catalog.ts ServerFacts); absent where an engine has none. */
export const SERVER_FACTS = [
  'tables',
  'database',
  'relationFiles',
  'databases',
  'recoveryInitSyncMethod',
  'bufferPoolBytes',
  'pageSize',
] as const;

/**
 * Facts computed from the ones read, the same for every engine: `tuples` = live + dead, the shares
 * (dead of the tuples, HOT of the updates, the table's bytes of the buffer pool) and `otherDatabases`
 * (the databases besides the one read; absent when there are none).
 */
export const DERIVED_FACTS = {
  heap: ['schema', 'name', 'tuples', 'deadShare', 'hotShare'],
  compressible: ['schema', 'name', 'sizeBytes', 'bufferPoolShare'],
  server: ['otherDatabases'],
} as const;

const fraction = z.number().min(0).max(1);
const atLeast = z.number().int().min(0);

/**
 * The table sets, by name: what each holds, its ranking and its thresholds. An engine's inspector
 * fills the sets it can read; a scenario names one and gives its thresholds.
 */
export const ADVISE_TABLE_SETS = {
  /** Dead tuples: at least `min_dead_tuples`, and `min_dead_fraction` of live + dead or more; most dead first. */
  bloated: { kind: 'heap', thresholds: { min_dead_tuples: atLeast, min_dead_fraction: fraction } },
  /** As `bloated`, of tables with at least one index. */
  indexedWithDeadTuples: { kind: 'heap', thresholds: { min_dead_tuples: atLeast, min_dead_fraction: fraction } },
  /** At least `min_updates` updates, fewer than `max_hot_fraction` of them in-page (HOT), fillfactor at least `min_fillfactor`; most out-of-page updates first. */
  hotUnfriendly: {
    kind: 'heap',
    thresholds: { min_updates: atLeast, max_hot_fraction: fraction, min_fillfactor: z.number().int().min(10).max(100) },
  },
  /** Data + index at least `min_buffer_pool_fraction` of the buffer pool, or already compressed; largest first. */
  compressionCandidates: { kind: 'compressible', thresholds: { min_buffer_pool_fraction: fraction } },
} as const;
export type AdviseTableSet = keyof typeof ADVISE_TABLE_SETS;
/** `advise.tables`: a table set and its thresholds. */
export const AdviseTables = z.discriminatedUnion('set', [
  z.strictObject({ set: z.literal('bloated'), ...ADVISE_TABLE_SETS.bloated.thresholds }),
  z.strictObject({ set: z.literal('indexedWithDeadTuples'), ...ADVISE_TABLE_SETS.indexedWithDeadTuples.thresholds }),
  z.strictObject({ set: z.literal('hotUnfriendly'), ...ADVISE_TABLE_SETS.hotUnfriendly.thresholds }),
  z.strictObject({ set: z.literal('compressionCandidates'), ...ADVISE_TABLE_SETS.compressionCandidates.thresholds }),
]);
export type AdviseTables = z.infer<typeof AdviseTables>;
/** What an inspector is asked for: per set, its thresholds (the `set` field left out). */
export type AdviseSetRequests = {
  [K in AdviseTableSet]?: Omit<Extract<AdviseTables, { set: K }>, 'set'>;
};

const serverFact = z.enum(SERVER_FACTS);
/** A condition on one fact of the database read: at least `min`, or equal to `equals`. */
const Condition = z
  .strictObject({ min: z.number().optional(), equals: z.union([z.string(), z.number(), z.boolean()]).optional() })
  .refine((c) => (c.min === undefined) !== (c.equals === undefined), { message: 'give exactly one of min, equals' });

/** `advise.database`: the whole database is the one item, when every condition holds. */
export const AdviseDatabase = z.strictObject({
  /** Conditions on the database's facts; a fact the inspector did not read leaves the scenario without a rule there. */
  where: z.partialRecord(serverFact, Condition),
  /** Per fact the server has no value of (null): why the scenario does not apply. */
  when_null: z.partialRecord(serverFact, boundedString(300)).default({}),
  /** The facts shown with the item (JSON `facts`), null where not read. */
  facts: z.array(serverFact).min(1),
});
export type AdviseDatabase = z.infer<typeof AdviseDatabase>;

/** A `tunelab run` parameter from a fact: round(fact ÷ `divide`), at least `at_least`. */
const AdviseParam = z.strictObject({
  fact: z.string().min(1).max(60),
  divide: z.number().positive().optional(),
  at_least: z.number().optional(),
});
export type AdviseParam = z.infer<typeof AdviseParam>;

export const AdviseSpec = z.strictObject({
  tables: AdviseTables.optional(),
  database: AdviseDatabase.optional(),
  /** The parameter the answer is looked up by (one of `params`). */
  scale: paramName,
  /** The rule in words; `{tables.min_dead_tuples:int}` names a field of this block. */
  rule: boundedString(600),
  /** What advise saw, per item; `{deadTuples:int}` names a fact (ADVISE_TEMPLATES in scenarios/README.md). */
  why: boundedString(600),
  params: z.record(paramName, AdviseParam),
});
export type AdviseSpec = z.infer<typeof AdviseSpec>;

// ─── Templates ──────────────────────────────────────────────────────────────────────────────
/**
 * Text with `{name}` or `{name:format}` placeholders; `[a|b|c]` is the first alternative whose
 * placeholders all have a value (not null, absent or false), or nothing. Formats: `int`
 * (12,000), `pct` (a fraction as 60%), `bytes` (2.7 MiB), `upper`, `if` (prints nothing; only
 * requires a value), `plural:one:many` (the word for the count).
 */
type Placeholder = { name: string; format: string[] };
type Piece = string | Placeholder | { alternatives: Piece[][] };

const FORMATS = new Set(['int', 'pct', 'bytes', 'upper', 'if', 'plural']);

/** Parses a template; throws an Error whose message says what is wrong. */
export function parseAdviseTemplate(text: string): Piece[] {
  const top: Piece[][] = [[]];
  let alternatives: Piece[][] | null = null;
  let i = 0;
  let literal = '';
  const cur = () => (alternatives ? alternatives.at(-1)! : top[0]!);
  const flush = () => {
    if (literal) cur().push(literal);
    literal = '';
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '{') {
      const end = text.indexOf('}', i);
      if (end < 0) throw new Error(`"{" at ${i} is not closed`);
      const [name, ...format] = text.slice(i + 1, end).split(':');
      if (!name || !/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name))
        throw new Error(`"{${text.slice(i + 1, end)}}" names no fact`);
      if (format.length && !FORMATS.has(format[0]!)) throw new Error(`unknown format "${format[0]}" in {${name}:…}`);
      if (format[0] === 'plural' && format.length !== 3) throw new Error(`{${name}:plural:one:many} needs two words`);
      flush();
      cur().push({ name, format });
      i = end + 1;
    } else if (c === '[') {
      if (alternatives) throw new Error('"[" inside "[…]"');
      flush();
      alternatives = [[]];
      i++;
    } else if (c === '|' && alternatives) {
      flush();
      alternatives.push([]);
      i++;
    } else if (c === ']') {
      if (!alternatives) throw new Error(`"]" at ${i} closes nothing`);
      flush();
      top[0]!.push({ alternatives });
      alternatives = null;
      i++;
    } else if (c === '}') {
      throw new Error(`"}" at ${i} opens nothing`);
    } else {
      literal += c;
      i++;
    }
  }
  if (alternatives) throw new Error('"[" is not closed');
  flush();
  return top[0]!;
}

/** The names a template's placeholders read. */
export function adviseTemplateNames(pieces: readonly Piece[]): string[] {
  return pieces.flatMap((p) =>
    typeof p === 'string' ? [] : 'name' in p ? [p.name] : p.alternatives.flatMap(adviseTemplateNames),
  );
}

export type FactValue = number | string | boolean | null | undefined;

const MB = 1024 * 1024;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const bytes = (n: number) =>
  n >= 1024 ** 3
    ? `${(n / 1024 ** 3).toFixed(1)} GiB`
    : n >= MB
      ? `${(n / MB).toFixed(1)} MiB`
      : `${Math.round(n / 1024)} KiB`;

function formatValue(v: FactValue, format: string[]): string {
  const n = Number(v);
  switch (format[0]) {
    case 'int':
      return int(n);
    case 'pct':
      return `${Math.round(n * 100)}%`;
    case 'bytes':
      return bytes(n);
    case 'upper':
      return String(v).toUpperCase();
    case 'if':
      return '';
    case 'plural':
      return n === 1 ? format[1]! : format[2]!;
    default:
      return String(v);
  }
}

const present = (v: FactValue) => v !== null && v !== undefined && v !== false;

/** Renders a parsed template with `lookup`; a placeholder outside `[…]` without a value prints "unknown". */
export function renderAdviseTemplate(pieces: readonly Piece[], lookup: (name: string) => FactValue): string {
  let out = '';
  for (const p of pieces) {
    if (typeof p === 'string') out += p;
    else if ('name' in p) {
      const v = lookup(p.name);
      out += present(v) || v === false ? formatValue(v, p.format) : 'unknown';
    } else {
      const alt = p.alternatives.find((a) => adviseTemplateNames(a).every((n) => present(lookup(n))));
      if (alt) out += renderAdviseTemplate(alt, lookup);
    }
  }
  return out;
}

/** The facts a table of `set` offers to templates and parameters (read, derived, and the server's). */
export function factsOfSet(set: AdviseTableSet): readonly string[] {
  const kind = ADVISE_TABLE_SETS[set].kind;
  return [
    ...(kind === 'heap' ? HEAP_TABLE_FACTS : COMPRESSIBLE_TABLE_FACTS),
    ...DERIVED_FACTS[kind],
    ...SERVER_FACTS,
    ...DERIVED_FACTS.server,
  ];
}
const DATABASE_FACTS: readonly string[] = [...SERVER_FACTS, ...DERIVED_FACTS.server];

/** A field of the advise block by dotted path (`tables.min_dead_tuples`), for the rule's placeholders. */
export function adviseField(spec: unknown, dotted: string): FactValue {
  let v: unknown = spec;
  for (const k of dotted.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? v : undefined;
}

type Issue = { path: (string | number)[]; message: string };

function templateIssues(field: 'rule' | 'why', text: string, known: (n: string) => boolean, what: string): Issue[] {
  try {
    const unknown = adviseTemplateNames(parseAdviseTemplate(text)).filter((n) => !known(n));
    return unknown.map((n) => ({ path: ['advise', field], message: `{${n}} names no ${what}` }));
  } catch (e) {
    return [{ path: ['advise', field], message: (e as Error).message }];
  }
}

/**
 * The checks across the block and the scenario: one source (tables or database), placeholders
 * that name facts of it (the rule's: fields of the block), parameters from its facts that the
 * scenario declares as numbers, and a scale among them.
 */
export function adviseIssues(spec: AdviseSpec, params: Readonly<Record<string, { type: string }>>): Issue[] {
  const issues: Issue[] = [];
  if (!spec.tables === !spec.database)
    issues.push({ path: ['advise'], message: 'give exactly one of tables (a table set) and database' });
  const facts = spec.tables ? factsOfSet(spec.tables.set) : DATABASE_FACTS;
  const known = (n: string) => facts.includes(n);
  issues.push(
    ...templateIssues(
      'why',
      spec.why,
      known,
      `fact of ${spec.tables ? `the set ${spec.tables.set}` : 'the database'}; expected one of: ${facts.join(', ')}`,
    ),
  );
  issues.push(
    ...templateIssues('rule', spec.rule, (n) => adviseField(spec, n) !== undefined, 'field of this advise block'),
  );
  for (const [name, p] of Object.entries(spec.params)) {
    const def = Object.hasOwn(params, name) ? params[name] : undefined;
    if (def?.type !== 'integer' && def?.type !== 'number')
      issues.push({
        path: ['advise', 'params', name],
        message: def
          ? `${name} is ${def.type}; advise passes numbers`
          : `unknown parameter "${name}"; expected one of: ${Object.keys(params).join(', ')}`,
      });
    if (!known(p.fact))
      issues.push({
        path: ['advise', 'params', name, 'fact'],
        message: `unknown fact "${p.fact}"; expected one of: ${facts.join(', ')}`,
      });
  }
  if (!Object.hasOwn(spec.params, spec.scale))
    issues.push({
      path: ['advise', 'scale'],
      message: `"${spec.scale}" is not one of advise.params: ${Object.keys(spec.params).join(', ')}`,
    });
  return issues;
}
