// `@tunelab/contracts/testing`: fast-check arbitraries of the contracts, for property tests only.
//
// Written by hand from `RunSubmission` (run.ts and the primitives it uses): there is no
// `@fast-check/zod`, and zod-fast-check (0.10, peer zod ^3) reads zod 3 internals, throws on every
// zod 4 schema ("'ZodObject' schemas are not supported") and cannot see refinements (unique samples, one unit per metric, value ranges per unit,
// storable text) anyway. The contract stays the judge: `expectedStatusOf` asks `RunSubmission`
// itself whether a body must be stored or refused, so an arbitrary that drifts from the
// contract makes a test fail loudly instead of quietly testing less.
import { parseTree, type Node as JsonNode } from 'jsonc-parser';
import fc from 'fast-check';
import { DATE_RANGE, isStorableText, LIMITS } from '../src/primitives.ts';
import { RunSubmission, type RunSubmissionInput } from '../src/run.ts';
import { UNIT_RANGES } from '../src/units.ts';

export { fc };

const MAX = Number.MAX_VALUE;
const GENERIC_LIMIT = 2 ** 63;
/** Names that are properties of every JavaScript object: a lookup by name must not find them. */
export const PROTOTYPE_NAMES = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'prototype',
  'isPrototypeOf',
  '__defineGetter__',
] as const;

// ─── Valid bodies ────────────────────────────────────────────────────────────────────────────

/** Text the contract stores: any Unicode (astral planes, combining marks, RTL), no NUL, no lone surrogate. */
const storableText = (min: number, max: number) =>
  fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: Math.min(max, 40) }) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 40) }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          ...[
            '=HYPERLINK("x")',
            '<script>alert(1)</script>',
            '-1+1',
            '\u202eRTL',
            '🦆'.repeat(3),
            '0',
            ' ',
            '../..',
            '%00',
            '\\u0000',
          ].filter((s) => s.length >= min),
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
      // Now and then the longest the contract allows.
      { weight: 1, arbitrary: fc.constantFrom('x', 'é', '\u{1F986}').map((c) => c.repeat(Math.floor(max / c.length))) },
    )
    .filter((s) => s.length >= min && s.length <= max && isStorableText(s));

/** A contract identifier: variant, metric, scenario key. */
const identifier = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '1-1',
      '1-2',
      '2-1',
      '2-2',
      'a',
      'b',
      'duration',
      'size_bytes',
      'tps',
      'vacuum-index-cleanup',
      'fuzz.one',
      'x:y',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES.filter((n) => /^[A-Za-z0-9]/.test(n))) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,20}$/) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{99}$/) },
);

const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const intIn = (min: number, max: number) => fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));

const scalar = fc.oneof(
  storableText(0, LIMITS.note),
  finite,
  fc.constantFrom(MAX, -MAX, Number.MIN_VALUE, -0),
  fc.boolean(),
  fc.constant(null),
);

/** Keys of a record, prototype names included; `__proto__` only in mutations (the API's JSON parser refuses it). */
const recordKey = fc.oneof(
  { weight: 4, arbitrary: storableText(1, LIMITS.shortString) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
);

/** An object with exactly these own properties, `__proto__` and `constructor` included (never a prototype change). */
function record<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries);
}
const recordOf = <T>(value: fc.Arbitrary<T>, maxEntries: number) =>
  fc.uniqueArray(fc.tuple(recordKey, value), { maxLength: maxEntries, selector: ([k]) => k }).map(record);

/** A unit of UNIT_RANGES, or any other text (the generic bound applies). */
const unit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...UNIT_RANGES.keys()) },
  { weight: 1, arbitrary: storableText(1, 32) },
);

function valueIn(u: string) {
  const { min, max } = UNIT_RANGES.get(u) ?? { min: -GENERIC_LIMIT, max: GENERIC_LIMIT };
  return fc.oneof(
    { weight: 4, arbitrary: fc.double({ min, max, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max, 0) },
  );
}

/** ISO 8601 with a random offset within ±15:59: the same instant, written as a clock elsewhere shows it. */
function isoAt(t: number, offsetMinutes: number, fraction: boolean): string {
  const local = new Date(t + offsetMinutes * 60_000).toISOString(); // yyyy-mm-ddThh:mm:ss.sssZ
  const body = fraction ? local.slice(0, -1) : local.slice(0, 19);
  if (offsetMinutes === 0) return `${body}Z`;
  const a = Math.abs(offsetMinutes);
  return `${body}${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}
const offset = fc.oneof(fc.constant(0), fc.integer({ min: -959, max: 959 }), fc.constantFrom(-959, 959, 330, -210));
const instant = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: DATE_RANGE.from, max: DATE_RANGE.until - 1 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(DATE_RANGE.from, DATE_RANGE.until - 1000, DATE_RANGE.until - 1, Date.UTC(2000, 1, 29)),
  },
);
const dates = fc
  .record({
    start: instant,
    length: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10 ** 10 })),
    o1: offset,
    o2: offset,
    f1: fc.boolean(),
    f2: fc.boolean(),
  })
  .map(({ start, length, o1, o2, f1, f2 }) => {
    // Whole seconds unless a fraction is written; a dropped fraction must not put the end first.
    const s = f1 ? start : start - (start % 1000);
    const e = Math.min(s + length, DATE_RANGE.until - 1);
    const whole = e - (e % 1000);
    const fraction = f2 || whole < s;
    return { startedAt: isoAt(s, o1, f1), finishedAt: isoAt(fraction ? e : whole, o2, fraction) };
  });

const semver = fc
  .tuple(
    fc.nat({ max: 1000 }),
    fc.nat(),
    fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER)),
    fc.option(fc.stringMatching(/^[-+][0-9A-Za-z.-]{1,20}$/), { nil: undefined }),
  )
  .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre ?? ''}`);

const hex64 = fc.oneof(
  fc.constantFrom('a'.repeat(64), 'b'.repeat(64), '0'.repeat(64)),
  fc.stringMatching(/^[0-9a-f]{64}$/),
);

const hardware = fc.oneof(
  // A few machines many runs share: groups with n > 1 for the statistics.
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      {
        cpuModel: 'Fuzz CPU',
        physicalCores: 2,
        logicalCpus: 4,
        memoryBytes: 8 * 1024 ** 3,
        storage: { kind: 'ssd' as const, model: null },
        filesystem: 'ext4',
        os: 'Debian GNU/Linux 12',
        kernel: '6.1.0',
        virtualization: null,
      },
      {
        cpuModel: 'constructor',
        physicalCores: 4096,
        logicalCpus: 8192,
        memoryBytes: 2 ** 53 - 1,
        storage: { kind: 'unknown' as const, model: 'toString' },
        filesystem: null,
        os: '__proto__',
        kernel: 'valueOf',
        virtualization: 'hasOwnProperty',
      },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        cpuModel: storableText(1, 200),
        physicalCores: intIn(1, 4096),
        logicalCpus: intIn(1, 8192),
        memoryBytes: intIn(1, 2 ** 53 - 1),
        storage: fc.record(
          {
            kind: fc.constantFrom('ssd' as const, 'hdd' as const, 'nvme' as const, 'unknown' as const),
            model: fc.option(storableText(1, 200), { nil: null }),
          },
          { requiredKeys: ['kind'] },
        ),
        filesystem: fc.option(storableText(1, 64), { nil: null }),
        os: storableText(1, 200),
        kernel: storableText(1, 200),
        virtualization: fc.option(storableText(1, 64), { nil: null }),
        cpuSpeedGhz: fc.oneof(fc.double({ min: 0, max: 100, noNaN: true }), fc.constantFrom(0, 100)),
      },
      { requiredKeys: ['cpuModel', 'physicalCores', 'logicalCpus', 'memoryBytes', 'storage', 'os', 'kernel'] },
    ),
  },
);

const database = fc.record({
  engine: fc.constantFrom('postgresql' as const, 'mysql' as const, 'mariadb' as const),
  version: storableText(1, 500),
  major: intIn(0, 1000),
  minor: intIn(0, 100_000),
  settings: recordOf(storableText(0, LIMITS.shortString * 10), 30),
});

const sweep = fc.option(
  fc.record({
    param: fc.oneof(
      fc.constantFrom('vus', 'tables', '__proto__', 'constructor', '_'),
      fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/),
    ),
    values: fc.uniqueArray(finite, { minLength: 1, maxLength: 3 }),
  }),
  { nil: undefined },
);

export type BodySize = { maxVariants: number; maxRepetitions: number; maxMetrics: number; maxTimeSeries: number };
const SMALL: BodySize = { maxVariants: 3, maxRepetitions: 4, maxMetrics: 3, maxTimeSeries: 8 };
/** Large arrays, still far within LIMITS: thousands of samples and time-series points. */
const LARGE: BodySize = { maxVariants: 4, maxRepetitions: 50, maxMetrics: 5, maxTimeSeries: 4000 };

/** Samples unique per (variant, repetition, metric, point), one unit per metric, values within their unit's range. */
function samplesOf(size: BodySize) {
  return fc
    .record({
      variants: fc.uniqueArray(identifier, { minLength: 1, maxLength: size.maxVariants }),
      repetitions: fc.uniqueArray(
        fc.oneof(fc.integer({ min: 1, max: size.maxRepetitions }), fc.constantFrom(1, 100_000)),
        { minLength: 1, maxLength: size.maxRepetitions },
      ),
      metrics: fc.uniqueArray(fc.tuple(identifier, unit), {
        minLength: 1,
        maxLength: size.maxMetrics,
        selector: ([m]) => m,
      }),
      sweep,
    })
    .chain(({ variants, repetitions, metrics, sweep: sw }) => {
      const cells = variants.flatMap((variant) =>
        repetitions.flatMap((repetition) =>
          metrics.flatMap(([metric, u]) =>
            sw
              ? sw.values.map((value) => ({ variant, repetition, metric, unit: u, point: { param: sw.param, value } }))
              : [{ variant, repetition, metric, unit: u }],
          ),
        ),
      );
      return fc.tuple(
        fc.constant({ variants, repetitions }),
        fc.tuple(
          ...cells.map((c) =>
            fc
              .tuple(fc.boolean(), valueIn(c.unit))
              .map(([keep, value]) => (keep || c === cells[0] ? { ...c, value } : null)),
          ),
        ),
      );
    })
    .map(([{ variants, repetitions }, maybe]) => ({ variants, repetitions, samples: maybe.filter((s) => s !== null) }));
}

function timeSeriesOf(variants: string[], max: number) {
  return fc.array(
    fc.record(
      {
        variant: fc.constantFrom(...variants),
        repetition: intIn(1, 100_000),
        metric: identifier,
        x: fc.oneof(
          fc.double({ min: -GENERIC_LIMIT, max: GENERIC_LIMIT, noNaN: true }),
          fc.constantFrom(-GENERIC_LIMIT, GENERIC_LIMIT),
        ),
        value: fc.oneof(
          fc.double({ min: -GENERIC_LIMIT, max: GENERIC_LIMIT, noNaN: true }),
          fc.constantFrom(-GENERIC_LIMIT, GENERIC_LIMIT),
        ),
      },
      { requiredKeys: ['variant', 'repetition', 'metric', 'x', 'value'] },
    ),
    { maxLength: max },
  );
}

/** A body `RunSubmission` accepts (checked by `expectedStatusOf` in the tests that use it). */
export function validRunSubmission(size: BodySize = SMALL): fc.Arbitrary<RunSubmissionInput> {
  return samplesOf(size).chain(({ variants, repetitions, samples }) =>
    fc
      .record(
        {
          scenario: fc.record(
            {
              key: identifier,
              version: hex64,
              title: storableText(1, 300),
              comparisons: fc.array(
                fc.record({
                  baseline: fc.oneof(fc.constantFrom(...variants), identifier),
                  candidate: fc.oneof(fc.constantFrom(...variants), identifier),
                }),
                { maxLength: 5 },
              ),
            },
            { requiredKeys: ['key', 'version'] },
          ),
          params: recordOf(scalar, 8),
          options: fc.record(
            {
              repetitions: intIn(1, 100_000),
              scale: fc.constantFrom('default' as const, 'published' as const),
              untilStable: fc.record(
                {
                  startRepetitions: intIn(1, 100_000),
                  maxRepetitions: intIn(1, 100_000),
                  cvThreshold: fc.double({ min: Number.MIN_VALUE, max: MAX, noNaN: true, noDefaultInfinity: true }),
                  budgetSeconds: intIn(1, 10_000_000),
                  source: fc.constantFrom('option' as const, 'scenario' as const),
                },
                { requiredKeys: ['startRepetitions', 'maxRepetitions', 'cvThreshold'] },
              ),
            },
            { requiredKeys: ['repetitions'] },
          ),
          hardware,
          database,
          runnerVersion: semver,
          dates,
          samples: fc.constant(samples),
          timeSeries: timeSeriesOf(variants, size.maxTimeSeries),
          notes: fc.array(
            fc.record(
              {
                variant: identifier,
                repetition: intIn(1, 100_000),
                kind: storableText(1, 64),
                text: storableText(0, LIMITS.note),
              },
              { requiredKeys: ['kind', 'text'] },
            ),
            { maxLength: 3 },
          ),
          warnings: fc.array(storableText(0, LIMITS.note), { maxLength: 3 }),
          order: fc.array(
            fc.record({ variant: fc.constantFrom(...variants), repetition: fc.constantFrom(...repetitions) }),
            { maxLength: 12 },
          ),
        },
        { requiredKeys: ['scenario', 'params', 'hardware', 'database', 'runnerVersion', 'dates', 'samples'] },
      )
      .map(({ dates: d, ...rest }) => ({ ...rest, ...d })),
  );
}

// ─── Mutations ───────────────────────────────────────────────────────────────────────────────

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

const OUT_OF_RANGE = [
  MAX,
  -MAX,
  1e308,
  2 ** 63,
  2 ** 63 * 1.0000001,
  2 ** 53 + 2,
  -1,
  0,
  0.5,
  -0.5,
  1e-320,
  100_001,
  4097,
  8193,
  1e21,
] as const;
const NAN_ISH = ['NaN', 'Infinity', '-Infinity', '1e309', '0x10', ' 1', '', 'null', 'undefined', '1,5', '١٢٣'] as const;
const BAD_TEXT = [
  'a\u0000b',
  '\u0000',
  'x\ud800',
  '\udc00y',
  '\ud800\ud800',
  '\udfff\ud800',
  'ok\u0000\ud800',
] as const;
const EXTREME_DATES = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:30:00+01:00',
  '9999-12-31T23:59:59-12:00',
  '1969-12-31T23:59:59.999Z',
  '2100-01-01T00:00:00Z',
  '2100-01-01T15:58:59+15:59',
  '1969-12-31T08:01:00-15:59',
  '2026-01-01T00:00:00+16:00',
  '2026-01-01T00:00:00-23:59',
  '+275760-09-13T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T23:59:60Z',
  '2026-01-01',
  '2026-01-01T00:00:00',
  '20260101T000000Z',
  '2026-01-01T00:00:00.1234567890123Z',
  '2026-01-01T00:00:00+0530',
  '2026-01-01T00:00:00+05',
  '2026-13-01T00:00:00Z',
] as const;
const WRONG_TYPES: Json[] = [null, true, false, 0, 1, '', 'x', [], [1], {}, { a: 1 }, [null], MAX];
const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'extra',
  'toString',
  '',
  '\u0000',
  'id',
  'runnerId',
] as const;

/** Every path of a JSON tree, the root first. */
function pathsOf(v: Json, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) pathsOf(v[k] as Json, [...at, k], out);
  return out;
}

function getAt(root: Json, path: Path): Json | undefined {
  let v: Json | undefined = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Array.isArray(v) ? v[k as number] : Object.prototype.hasOwnProperty.call(v, k) ? v[k as string] : undefined;
  }
  return v;
}

/** Sets own properties only (`__proto__` stays a key), so the JSON says exactly what was written. */
function setOwn(obj: Json[] | { [k: string]: Json }, key: string | number, value: Json) {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

type Mutation =
  | { kind: 'replace'; pick: number; value: Json }
  | { kind: 'delete'; pick: number }
  | { kind: 'extra'; pick: number; key: string; value: Json }
  | { kind: 'grow'; pick: number; times: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('replace' as const),
    pick: fc.nat(),
    value: fc.oneof(
      fc.constantFrom<Json>(...OUT_OF_RANGE),
      fc.constantFrom<Json>(...NAN_ISH),
      fc.constantFrom<Json>(...BAD_TEXT),
      fc.constantFrom<Json>(...EXTREME_DATES),
      fc.constantFrom(...WRONG_TYPES),
      fc.string({ unit: 'binary', maxLength: 8 }),
    ),
  }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('extra' as const),
    pick: fc.nat(),
    key: fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 5 })),
    value: fc.oneof(fc.constantFrom(...WRONG_TYPES), fc.constant<Json>({ prototype: { polluted: true } })),
  }),
  fc.record({
    kind: fc.constant('grow' as const),
    pick: fc.nat(),
    times: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(2000)),
  }),
);

function applyMutation(doc: Json, m: Mutation): Json {
  const paths = pathsOf(doc);
  const path = paths[m.pick % paths.length] ?? [];
  if (path.length === 0) return m.kind === 'replace' ? structuredClone(m.value) : doc;
  const parent = getAt(doc, path.slice(0, -1));
  const key = path[path.length - 1] as string | number;
  if (parent === null || typeof parent !== 'object' || parent === undefined) return doc;
  const target = getAt(doc, path);
  switch (m.kind) {
    case 'replace':
      // A copy: the constants are shared between runs and a later mutation may edit this one.
      setOwn(parent, key, structuredClone(m.value));
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
      break;
    case 'extra':
      if (target !== null && typeof target === 'object' && !Array.isArray(target))
        setOwn(target, m.key, structuredClone(m.value));
      else if (!Array.isArray(parent)) setOwn(parent, m.key, structuredClone(m.value));
      break;
    case 'grow': {
      // Copies of an element, within the contract's limits: duplicates the contract must name.
      // Thousands of copies only of small elements: a body stays a few MB.
      const array = Array.isArray(parent) ? parent : Array.isArray(target) ? target : null;
      const element = Array.isArray(parent) ? parent[key as number] : Array.isArray(target) ? target[0] : undefined;
      if (!array || element === undefined) break;
      const times = JSON.stringify(element).length * m.times > 4_000_000 ? 3 : m.times;
      for (let i = 0; i < times; i++) array.push(structuredClone(element));
      break;
    }
  }
  return doc;
}

/** Edits of the JSON text itself: what no object can express. */
const RAW_EDITS: ((json: string) => string)[] = [
  (j) => j.slice(0, Math.floor(j.length / 2)),
  (j) => `${j},`,
  (j) => j.replace('{', '{"__proto__":{"polluted":true},'),
  (j) => j.replace('"params":{', '"params":{"__proto__":1,'),
  (j) => j.replace('"params":{', '"params":{"constructor":{"prototype":{"polluted":true}},'),
  (j) => j.replace('"params":{', '"params":{"\\ud800":1,'),
  (j) => j.replace('"runnerVersion":', '"runnerVersion":"0.0.1","runnerVersion":'),
  (j) => j.replace(/"value":(-?[0-9.e+-]+)/, '"value":1e400'),
  (j) => j.replace(/"value":(-?[0-9.e+-]+)/, '"value":-0.0e-999'),
  (j) => j.replace(/"value":(-?[0-9.e+-]+)/, '"value":NaN'),
  (j) => j.replace(/"repetition":1\b/, '"repetition":1.0'),
  (j) => j.replace(/"repetition":1\b/, '"repetition":1e0'),
  (j) => j.replace(/"os":"/, '"os":"\\u0000'),
  () => `${'['.repeat(2000)}${']'.repeat(2000)}`,
  (j) => `\ufeff${j}`,
  (j) => ` \n\t${j}\n`,
];

/** A valid body changed in one to three places, as an object or as JSON text. */
export function mutatedRunSubmission(): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(validRunSubmission(), fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([doc, ms]) => JSON.stringify(ms.reduce(applyMutation, structuredClone(doc) as Json))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(validRunSubmission(), fc.constantFrom(...RAW_EDITS))
        .map(([doc, edit]) => edit(JSON.stringify(doc))),
    },
  );
}

/**
 * JSON texts for `POST /v1/runs`: about half valid (a few with thousands of samples), half
 * mutated.
 */
export function runSubmissionBody(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 10, arbitrary: validRunSubmission().map((d) => JSON.stringify(d)) },
    { weight: 1, arbitrary: validRunSubmission(LARGE).map((d) => JSON.stringify(d)) },
    { weight: 14, arbitrary: mutatedRunSubmission() },
  );
}

// ─── The oracle ──────────────────────────────────────────────────────────────────────────────

/** True when a parsed body has a key the API's JSON parser refuses (prototype poisoning). */
function hasPoisonKey(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(hasPoisonKey);
  for (const [k, x] of Object.entries(v)) {
    if (k === '__proto__') return true;
    if (
      k === 'constructor' &&
      x !== null &&
      typeof x === 'object' &&
      Object.prototype.hasOwnProperty.call(x, 'prototype')
    )
      return true;
    if (hasPoisonKey(x)) return true;
  }
  return false;
}

/**
 * What the API must answer to this JSON text, judged by the contract: `stored` (201, or 200 when
 * the same body was stored before), `refused` (400: not JSON, a poisoning key, or not a
 * `RunSubmission`, with the contract's first failing path) or `too-large` (413: over
 * LIMITS.bodyBytes).
 */
/**
 * The pointer of a key an object of `json` repeats (the API refuses such a body: JSON.parse keeps
 * the last copy, and the text would not be the document checked). Read from jsonc-parser's syntax
 * tree, not the visitor the API uses; a tree too deep to build is left to the contract.
 */
function repeatedKeyOf(json: string): string | undefined {
  let tree: JsonNode | undefined;
  try {
    tree = parseTree(json);
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
  const walk = (node: JsonNode, at: string): string | undefined => {
    if (node.type === 'object') {
      const seen = new Set<string>();
      for (const prop of node.children ?? []) {
        const [keyNode, value] = prop.children ?? [];
        const key = String(keyNode?.value);
        const here = `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (seen.has(key)) return here;
        seen.add(key);
        const inner = value ? walk(value, here) : undefined;
        if (inner) return inner;
      }
    }
    if (node.type === 'array')
      for (const [i, child] of (node.children ?? []).entries()) {
        const inner = walk(child, `${at}/${i}`);
        if (inner) return inner;
      }
    return undefined;
  };
  try {
    return tree ? walk(tree, '') : undefined;
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

export function expectedStatusOf(
  json: string,
): { kind: 'stored' } | { kind: 'refused'; path?: string } | { kind: 'too-large' } {
  if (json.length * 3 > LIMITS.bodyBytes && new TextEncoder().encode(json).length > LIMITS.bodyBytes)
    return { kind: 'too-large' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.replace(/^\ufeff/, ''));
  } catch {
    return { kind: 'refused' };
  }
  if (hasPoisonKey(parsed)) return { kind: 'refused' };
  const repeated = repeatedKeyOf(json.replace(/^\ufeff/, ''));
  if (repeated !== undefined) return { kind: 'refused', path: repeated };
  const r = RunSubmission.safeParse(parsed);
  if (r.success) return { kind: 'stored' };
  const first = r.error.issues[0];
  return { kind: 'refused', path: first ? `/${first.path.map(String).join('/')}` : undefined };
}
