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
import {
  conditionsKey,
  adjustInteractions,
  directionOf,
  interactionsOf,
  list,
  pairFigures,
  pairsOf,
  oneRunnerNote,
  summaryOf,
  type Answered,
  type RawInteraction,
} from './side-by-side.ts';

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

/**
 * The groups by conditions (all but the major), the majors measured per class × engine, and the
 * release lines ("10.11") behind each engine's first numbers (what the majors hold), for the words.
 */
function indexByConditions(groups: readonly Answered[]) {
  const byConditions = new Map<string, Answered[]>();
  const majors = new Map<string, { hardwareClass: string; engine: Engine; majors: Set<number> }>();
  const releases = new Map<string, Set<string>>();
  for (const a of groups) {
    const g = a.group;
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
    const key = conditionsKey(g, g.hardware.class, true);
    byConditions.set(key, [...(byConditions.get(key) ?? []), a]);
  }
  return { byConditions, majors, releases };
}

/**
 * The scenario's pairs across engine major versions, from its per-group answers: groups that
 * differ only in the major (same class, scenario version, source, engine, parameter values and
 * sweep point) are put side by side, oldest major first.
 */
export function answerVersions(groups: readonly Answered[]): VersionAnswers {
  const { byConditions, majors, releases } = indexByConditions(groups);
  const pending: (Omit<VersionComparison, 'interactions' | 'summary' | 'sameVerdict' | 'versionChangesAnswer'> & {
    family: string;
    raw: RawInteraction<number>[];
    releases: string[];
  })[] = [];
  for (const same of byConditions.values()) {
    const sorted = [...same].sort((x, y) => x.group.engine.major - y.group.engine.major);
    if (new Set(sorted.map((a) => a.group.engine.major)).size < 2) continue;
    const first = sorted[0]!;
    for (const { baseline, candidate } of pairsOf(sorted)) {
      const answered = sorted.flatMap((a) => {
        const pair = a.pairs.find((p) => p.baseline === baseline && p.candidate === candidate);
        return pair ? [{ row: rowOf(a, pair), release: groupMajor(a.group) }] : [];
      });
      const rows = answered.map((r) => r.row);
      if (rows.length < 2) continue;
      const direction = directionOf(sorted, baseline, candidate);
      const g = first.group;
      pending.push({
        hardwareClass: g.hardware.class,
        engine: g.engine.engine,
        scenarioVersion: g.scenario.version,
        source: g.source,
        params: g.params,
        point: g.point ?? null,
        conditions: conditionsOf(first),
        baseline,
        candidate,
        direction,
        unit: g.unit,
        rows,
        // One family of interaction tests: every pair and sweep point of one class and conditions.
        family: conditionsKey(g, g.hardware.class, false),
        raw:
          direction === 'descriptive'
            ? []
            : interactionsOf(
                sorted.map((a) => ({ label: a.group.engine.major, answer: a })),
                baseline,
                candidate,
                true,
              ),
        releases: answered.map((r) => r.release),
      });
    }
  }
  const adjusted = adjustInteractions(pending);
  const comparisons: VersionComparison[] = pending.map(({ family: _family, raw: _raw, releases, ...base }, i) => {
    const interactions = adjusted[i] ?? [];
    const { same, changes, text } = summaryOf({ ...base, interactions }, releases, String, {
      subject: 'version',
      one: 'version',
      many: 'versions',
      tested: (labels) => `interaction tests between ${ENGINE_FACTS[base.engine].name} ${list(labels)}`,
    });
    const note = oneRunnerNote(base.rows, releases, { one: 'server version', many: 'server versions' });
    return { ...base, interactions, sameVerdict: same, versionChangesAnswer: changes, summary: `${text}${note}` };
  });

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
