/**
 * The hardware class as an answer axis: for one engine major (release line), scenario
 * version, parameter values and sweep point, the same declared pair side by side per hardware
 * class — n and mean per side, the difference and the relative improvement with its 95% interval
 * in the metric's direction, the verdict and the agreement with the article, read from the
 * per-group answers `answerScenario` computed (one group per class: the grouping never pools two
 * classes). An emulated class (`--like-article`: the server inside a resource envelope) is a class
 * like any other, and its row says it is emulated. Whether the hardware changes the answer is not
 * read from two verdicts that differ but tested: per two classes, the interaction
 * (`interactionTest` of @tunelab/stats: is the pair's ratio on one class different from that on
 * the other?), Holm-adjusted over every class interaction of the same major and conditions. The
 * rows, tests, families and words are side-by-side.ts's, as the versions axis's are. What a fleet of
 * classes reads first is summarised: the classes grouped by the verdict they give, and the
 * interaction tests only where one differs after adjustment, per two of those groups.
 */
import {
  isEmulatedClass,
  type ClassAnswers,
  type ClassComparison,
  type ClassInteraction,
  type ClassRow,
  type Engine,
} from '@tunelab/contracts';
import { groupMajor, serverName } from './answer.ts';
import { list, pairFigures, sideBySide, verdictWords, type Answered, type Axis } from './side-by-side.ts';

/**
 * Up to this many classes a sentence names them; past it, it counts them and groups them by the
 * answer they give, so that what is said of a fleet grows with its classes, not with their square.
 */
export const CLASSES_NAMED_UP_TO = 6;

/** A class in words, as a group's name says it: "2 cores / 2.7 GB of 24 GB / SSD-like (emulated)". */
export const classLabel = (hardwareClass: string): string =>
  hardwareClass
    .replace(/unknown disk(?=(, emulated)?$)/, 'virtual or unknown disk')
    .replace(/, emulated$/, ' (emulated)');

/** The group's name without its class part: the conditions two classes share ("PostgreSQL 17 · rows = 800,000"). */
const conditionsOf = (a: Answered): string => a.name.split(' · ').slice(1).join(' · ');

function rowOf(a: Answered, pair: Answered['pairs'][number]): ClassRow {
  return {
    hardwareClass: a.group.hardware.class,
    emulated: isEmulatedClass(a.group.hardware.class),
    serverVersions: a.group.databaseVersions.map((d) => d.version),
    ...pairFigures(a, pair),
  };
}

/** Measured classes first, then emulated ones; each by cores, memory, then name. */
const classOrder = (x: Answered, y: Answered) =>
  Number(isEmulatedClass(x.group.hardware.class)) - Number(isEmulatedClass(y.group.hardware.class)) ||
  x.group.hardware.physicalCores - y.group.hardware.physicalCores ||
  x.group.hardware.memoryGb - y.group.hardware.memoryGb ||
  x.group.hardware.class.localeCompare(y.group.hardware.class);

/** The hardware class as an axis: rows per class, the release line held, measured classes first. */
const CLASS_AXIS: Axis<string, ClassRow, Pick<ClassComparison, 'engine' | 'major' | 'server'>> = {
  label: (a) => a.group.hardware.class,
  held: groupMajor,
  order: classOrder,
  laterFirst: false,
  head: ({ group: g }) => ({ engine: g.engine.engine, major: g.engine.major, server: serverName(g) }),
  conditions: conditionsOf,
  row: rowOf,
  rowWords: (answered) => answered.map((a) => classLabel(a.group.hardware.class)),
  labelWords: classLabel,
  words: (c) => {
    const op = c.interactions.every((t) => t.method === 'log-ratio') ? '÷' : '−';
    return {
      subject: 'hardware',
      one: 'class',
      many: 'hardware classes',
      tested: (labels) =>
        `interaction tests of ${c.candidate} ${op} ${c.baseline} on ${c.server} between ${labels.length > CLASSES_NAMED_UP_TO ? `${labels.length} hardware classes` : list(labels)}`,
      namesUpTo: CLASSES_NAMED_UP_TO,
    };
  },
  runnerWords: { one: 'class', many: 'classes' },
};

/** Per engine release line, the classes measured. */
function measuredClasses(groups: readonly Answered[]) {
  const measuredOf = new Map<
    string,
    { engine: Engine; major: number; release: string; server: string; classes: Answered[] }
  >();
  for (const a of groups) {
    const g = a.group;
    const release = groupMajor(g);
    const serverKey = `${g.engine.engine}\u0000${release}`;
    const seen = measuredOf.get(serverKey) ?? {
      engine: g.engine.engine,
      major: g.engine.major,
      release,
      server: serverName(g),
      classes: [],
    };
    if (!seen.classes.some((x) => x.group.hardware.class === g.hardware.class)) seen.classes.push(a);
    measuredOf.set(serverKey, seen);
  }
  return measuredOf;
}

/**
 * The scenario's pairs across hardware classes, from its per-group answers: groups that differ
 * only in the class (same scenario version, source, engine and release line, parameter values,
 * unit and sweep point) are put side by side.
 */
export function answerClasses(groups: readonly Answered[]): ClassAnswers {
  const measuredOf = measuredClasses(groups);
  const comparisons: ClassComparison[] = sideBySide(groups, CLASS_AXIS).map(
    ({ answered: _answered, same, changes, summary, ...c }) => {
      const verdictGroups = verdictGroupsOf(c);
      return {
        ...c,
        sameVerdict: same,
        hardwareChangesAnswer: changes,
        summary,
        verdictGroups,
        changes: changesOf(verdictGroups, c.interactions),
      };
    },
  );

  const measured = [...measuredOf.values()]
    .sort((x, y) => x.engine.localeCompare(y.engine) || x.major - y.major || x.release.localeCompare(y.release))
    .map((m) => ({
      engine: m.engine,
      major: m.major,
      server: m.server,
      classes: [...m.classes].sort(classOrder).map((a) => a.group.hardware.class),
    }));
  return { measured, comparisons, sentence: sentenceOf(measured, comparisons) };
}

/** The rows grouped by their verdict's words, the most classes first (ties in the rows' order). */
function verdictGroupsOf(
  c: Pick<ClassComparison, 'baseline' | 'candidate' | 'rows'>,
): ClassComparison['verdictGroups'] {
  const groups = new Map<string, ClassComparison['verdictGroups'][number]>();
  for (const r of c.rows) {
    const words = verdictWords(c, r.verdict);
    const g = groups.get(words) ?? { kind: r.verdict.kind, conclusive: r.verdict.conclusive, words, classes: [] };
    g.classes.push(r.hardwareClass);
    groups.set(words, g);
  }
  return [...groups.values()].sort((x, y) => y.classes.length - x.classes.length);
}

/**
 * Per two verdict groups, the interaction tests between their classes — kept only where one
 * differs after Holm's adjustment: that is where the hardware changes the answer.
 */
function changesOf(
  groups: ClassComparison['verdictGroups'],
  interactions: readonly ClassInteraction[],
): ClassComparison['changes'] {
  const groupOf = new Map(groups.flatMap((g, i) => g.classes.map((k) => [k, i] as const)));
  const cells = new Map<
    string,
    { a: number; b: number; tests: number; differing: number; strongest: ClassInteraction | null }
  >();
  for (const t of interactions) {
    const [a, b] = [groupOf.get(t.a) ?? 0, groupOf.get(t.b) ?? 0].sort((x, y) => x - y) as [number, number];
    const key = `${a}:${b}`;
    const cell = cells.get(key) ?? { a, b, tests: 0, differing: 0, strongest: null };
    cell.tests += 1;
    if (t.differs) {
      cell.differing += 1;
      if (!cell.strongest || t.adjusted.p < cell.strongest.adjusted.p) cell.strongest = t;
    }
    cells.set(key, cell);
  }
  return [...cells.values()]
    .flatMap((c) => (c.strongest ? [{ ...c, strongest: c.strongest }] : []))
    .sort((x, y) => y.differing - x.differing || x.a - y.a || x.b - y.b);
}

/** Classes in words: each named up to CLASSES_NAMED_UP_TO, else counted. */
const classesInWords = (classes: readonly string[]) =>
  classes.length > CLASSES_NAMED_UP_TO ? `${classes.length} hardware classes` : list(classes.map(classLabel));

function sentenceOf(measured: ClassAnswers['measured'], comparisons: readonly ClassComparison[]): string {
  if (measured.length === 0) return 'No hardware class is measured yet.';
  const on = measured.map((m) => `${m.server} on ${classesInWords(m.classes)}`);
  if (comparisons.length > 0) {
    const side = new Map<string, Set<string>>();
    for (const c of comparisons) {
      const s = side.get(c.server) ?? new Set<string>();
      for (const r of c.rows) s.add(r.hardwareClass);
      side.set(c.server, s);
    }
    const where = [...side.entries()].map(([server, classes]) => `${classesInWords([...classes])} on ${server}`);
    return `Measured: ${list(on)}; the same pairs under equal conditions side by side: ${list(where)}.`;
  }
  return `Measured: ${list(on)}; no server has the same pair under equal conditions on two hardware classes yet.`;
}
