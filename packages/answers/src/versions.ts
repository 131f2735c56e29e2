/**
 * The server version as an answer axis: for one hardware class, scenario version,
 * engine, parameter values and sweep point, the same declared pair side by side per engine major
 * version — n and mean per side, the difference and the relative improvement with its 95%
 * interval in the metric's direction, the verdict and the agreement with the article, read from
 * the per-group answers `answerScenario` computed (one group per major: the grouping never pools
 * two majors). Whether the version changes the answer is not read from two verdicts that differ
 * but tested: per two majors, the interaction (`interactionTest` of @tunelab/stats: is the pair's
 * ratio on one major different from that on the other?), Holm-adjusted over every interaction
 * test of the same class and conditions.
 */
import {
  ENGINE_FACTS,
  type Engine,
  type VersionAnswers,
  type VersionComparison,
  type VersionRow,
} from '@tunelab/contracts';
import { CLASSES_NAMED_UP_TO, classLabel } from './classes.ts';
import { groupMajor, serverName } from './answer.ts';
import { list, pairFigures, sideBySide, type Answered, type Axis } from './side-by-side.ts';

/** The group's name without its engine-and-major part: the conditions two majors share. */
function conditionsOf(a: Answered): string {
  const server = serverName(a.group);
  return a.name
    .split(' · ')
    .filter((part) => part !== server)
    .join(' · ');
}

function rowOf(a: Answered, pair: Answered['pairs'][number]): VersionRow {
  return {
    engine: a.group.engine.engine,
    major: a.group.engine.major,
    serverVersions: a.group.databaseVersions.map((d) => d.version),
    ...pairFigures(a, pair),
  };
}

/** The server version as an axis: rows per engine major, the hardware class held, the older major first. */
const VERSION_AXIS: Axis<number, VersionRow, Pick<VersionComparison, 'hardwareClass' | 'engine'>> = {
  label: (a) => a.group.engine.major,
  held: (g) => g.hardware.class,
  order: (x, y) => x.group.engine.major - y.group.engine.major,
  laterFirst: true,
  head: ({ group: g }) => ({ hardwareClass: g.hardware.class, engine: g.engine.engine }),
  conditions: conditionsOf,
  row: rowOf,
  rowWords: (answered) => answered.map((a) => groupMajor(a.group)),
  labelWords: String,
  words: (c) => ({
    subject: 'version',
    one: 'version',
    many: 'versions',
    tested: (labels) => `interaction tests between ${ENGINE_FACTS[c.engine].name} ${list(labels)}`,
  }),
  runnerWords: { one: 'server version', many: 'server versions' },
};

/**
 * The majors measured per class × engine, and the release lines ("10.11") behind each engine's
 * first numbers (what the majors hold), for the words.
 */
function measuredMajors(groups: readonly Answered[]) {
  const majors = new Map<string, { hardwareClass: string; engine: Engine; majors: Set<number> }>();
  const releases = new Map<string, Set<string>>();
  for (const { group: g } of groups) {
    const classKey = `${g.hardware.class}\u0000${g.engine.engine}`;
    const seen = majors.get(classKey) ?? {
      hardwareClass: g.hardware.class,
      engine: g.engine.engine,
      majors: new Set(),
    };
    seen.majors.add(g.engine.major);
    const first = `${g.engine.engine}\u0000${g.engine.major}`;
    releases.set(first, (releases.get(first) ?? new Set()).add(groupMajor(g)));
    majors.set(classKey, seen);
  }
  return { majors, releases };
}

/**
 * The scenario's pairs across engine major versions, from its per-group answers: groups that
 * differ only in the major (same class, scenario version, source, engine, parameter values and
 * sweep point) are put side by side, oldest major first.
 */
export function answerVersions(groups: readonly Answered[]): VersionAnswers {
  const { majors, releases } = measuredMajors(groups);
  const comparisons: VersionComparison[] = sideBySide(groups, VERSION_AXIS).map(
    ({ answered: _answered, same, changes, summary, ...c }) => ({
      ...c,
      sameVerdict: same,
      versionChangesAnswer: changes,
      summary,
    }),
  );

  const measured = [...majors.values()]
    .map((m) => ({ hardwareClass: m.hardwareClass, engine: m.engine, majors: [...m.majors].sort((a, b) => a - b) }))
    .sort((a, b) => a.hardwareClass.localeCompare(b.hardwareClass) || a.engine.localeCompare(b.engine));
  const releasesOf = (engine: Engine, major: number) => {
    const lines = [...(releases.get(`${engine}\u0000${major}`) ?? [])];
    // Release lines of one first number in order: 10.6 before 10.11.
    return lines.length > 0
      ? lines.sort((x, y) => Number(x.split('.')[1] ?? 0) - Number(y.split('.')[1] ?? 0))
      : [String(major)];
  };
  return { measured, comparisons, sentence: sentenceOf(measured, comparisons, releasesOf) };
}

function sentenceOf(
  measured: VersionAnswers['measured'],
  comparisons: readonly VersionComparison[],
  releasesOf: (engine: Engine, major: number) => string[],
): string {
  if (measured.length === 0) return 'No server version is measured yet.';
  const on = (engine: Engine, majors: readonly number[]) =>
    `${ENGINE_FACTS[engine].name} ${list(majors.flatMap((m) => releasesOf(engine, m)))}`;
  const servers = [...new Set(measured.map((m) => m.engine))].map((e) =>
    on(
      e,
      [...new Set(measured.filter((m) => m.engine === e).flatMap((m) => m.majors))].sort((x, y) => x - y),
    ),
  );
  if (comparisons.length > 0) {
    const side = new Map<string, { engine: Engine; majors: Set<number> }>();
    for (const c of comparisons) {
      const s = side.get(c.hardwareClass) ?? { engine: c.engine, majors: new Set<number>() };
      for (const r of c.rows) s.majors.add(r.major);
      side.set(c.hardwareClass, s);
    }
    const where = perServer(
      [...side.entries()].map(([hardwareClass, s]) => ({
        hardwareClass,
        server: on(
          s.engine,
          [...s.majors].sort((x, y) => x - y),
        ),
      })),
    );
    return `Measured on ${list(servers)}; the same pairs under equal conditions side by side: ${list(where)}.`;
  }
  const perClass = perServer(measured.map((m) => ({ hardwareClass: m.hardwareClass, server: on(m.engine, m.majors) })));
  return `Measured on ${list(servers)} only — ${list(perClass)}; no hardware class has the same pair under equal conditions on two versions yet.`;
}

/**
 * "8 cores / 32 GB / SSD on PostgreSQL 14 and 17" per class; the classes measured on the same
 * servers counted instead ("75 hardware classes on PostgreSQL 15") when there are more of them
 * than a sentence names.
 */
function perServer(items: readonly { hardwareClass: string; server: string }[]): string[] {
  const byServer = new Map<string, string[]>();
  for (const i of items) byServer.set(i.server, [...(byServer.get(i.server) ?? []), i.hardwareClass]);
  return items.flatMap((i) => {
    const classes = byServer.get(i.server) ?? [];
    if (classes.length <= CLASSES_NAMED_UP_TO) return [`${classLabel(i.hardwareClass)} on ${i.server}`];
    return classes[0] === i.hardwareClass ? [`${classes.length} hardware classes on ${i.server}`] : [];
  });
}
