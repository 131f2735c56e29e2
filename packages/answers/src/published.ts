/**
 * The runs one published.json stands for (`scenarios/<key>/published.json`): one per machine the
 * article describes (`…:article` when it names none), and one run of a sweep table whose samples
 * carry their point. Pure: results-db imports them as `published` runs, and the runner answers a
 * run it just measured against them without a database. Conventions: results-db's README
 * "Published results".
 */
import {
  ENGINE_FACTS,
  ENGINES,
  parseServerVersion,
  type Engine,
  type PublishedFile,
  type RunSubmissionInput,
} from '@tunelab/contracts';
import { publishedMachineRuns } from '@tunelab/scenarios';

const GIB = 1024 ** 3;
const UNKNOWN_DATE = '1970-01-01T00:00:00.000Z';
const PUBLISHED_RUNNER_VERSION = '0.0.0+published';

const STORAGE: Record<string, 'ssd' | 'hdd' | 'nvme'> = { ssd: 'ssd', hdd: 'hdd', nvme: 'nvme' };

function serverVersion(file: PublishedFile): { version: string; major: number; minor: number } {
  // depesz's VACUUM FULL INPLACE ran on an 8.5 development build (see published.json variants).
  const stated =
    file.setup?.server_version ??
    Object.values(file.variants ?? {})
      .map((t) => /server (\d+\.\d+[-\w]*)/.exec(t)?.[1])
      .find(Boolean);
  const parsed = stated ? parseServerVersion(stated) : null;
  return stated && parsed ? { version: stated, ...parsed } : { version: 'unspecified (published)', major: 0, minor: 0 };
}

/**
 * The engine the article measured, from what its setup says (`setup.engine`, `setup.server_version`:
 * "MySQL InnoDB (2012…)", "Amazon Aurora PostgreSQL 15.4", "10.11.9-MariaDB") by the engine names
 * of ENGINE_FACTS; an article that names none is PostgreSQL (depesz's, which state only a version).
 */
function publishedEngine(file: PublishedFile): Engine {
  const stated = [file.setup?.['engine'], file.setup?.server_version]
    .filter((t): t is string => typeof t === 'string')
    .join(' ')
    .toLowerCase();
  return ENGINES.find((e) => stated.includes(ENGINE_FACTS[e].name.toLowerCase())) ?? 'postgresql';
}

/** The hardware of an article that did not describe its machine: placeholders the site shows as "not stated". */
const undescribedHardware = (file: PublishedFile) => ({
  cpuModel: `unspecified (published: ${file.source?.publisher ?? file.scenario}, hardware not described)`,
  physicalCores: 1,
  logicalCpus: 1,
  memoryBytes: GIB,
  storage: { kind: 'unknown' as const, model: null },
  filesystem: null,
  os: 'unspecified',
  kernel: 'unspecified',
  virtualization: null,
});

/** Builds the submissions one published.json stands for; pure, for tests and the importer. */
export function publishedSubmissions(
  file: PublishedFile,
  version: string,
): { machine: string; submission: RunSubmissionInput }[] {
  const metric = file.metric?.name ?? 'duration';
  const db = serverVersion(file);
  const engine = publishedEngine(file);
  const machineRuns = publishedMachineRuns(file).map(({ id, machine: m, runsSeconds: values }) => {
    const hardware =
      m === null
        ? undescribedHardware(file)
        : {
            cpuModel: `unspecified (published: ${m.id})`,
            physicalCores: m.cpu_cores,
            logicalCpus: m.cpu_cores,
            memoryBytes: Math.round(m.memory_gb * GIB),
            storage: { kind: STORAGE[m.disk.toLowerCase()] ?? ('unknown' as const), model: null },
            filesystem: null,
            os: 'unspecified',
            kernel: 'unspecified',
            virtualization: null,
          };
    const params: Record<string, string | number> = { 'published.machine': id };
    if (file.source?.title) params['published.title'] = file.source.title;
    if (m !== null) {
      if (m.label) params['published.label'] = m.label;
      if (m.data_scale !== undefined) params['published.data_scale'] = m.data_scale;
      for (const [variant, avg] of Object.entries(m.published_avg ?? {})) params[`published.avg.${variant}`] = avg;
    }
    const submission: RunSubmissionInput = {
      scenario: { key: file.scenario, version },
      params,
      hardware,
      database: { engine, ...db, settings: file.setup?.server_settings ?? {} },
      runnerVersion: PUBLISHED_RUNNER_VERSION,
      startedAt: UNKNOWN_DATE,
      finishedAt: UNKNOWN_DATE,
      samples: Object.entries(values).flatMap(([variant, xs]) =>
        xs.map((value, i) => ({ variant, repetition: i + 1, metric, unit: 's', value })),
      ),
      notes: [
        {
          kind: 'published',
          text: `Figures published by ${file.source?.publisher ?? 'an article'}: ${file.source?.title ?? file.scenario}`,
        },
      ],
    };
    return { machine: id, submission };
  });
  const sweep = file.sweep;
  if (!sweep) return machineRuns;
  // A sweep table (e.g. sync seconds per table count): one run of the article, samples with their point.
  const id = machineRuns.some((r) => r.machine === 'article') ? 'article-sweep' : 'article';
  const submission: RunSubmissionInput = {
    scenario: { key: file.scenario, version },
    params: { 'published.machine': id, ...(file.source?.title ? { 'published.title': file.source.title } : {}) },
    hardware: undescribedHardware(file),
    database: { engine, ...db, settings: file.setup?.server_settings ?? {} },
    runnerVersion: PUBLISHED_RUNNER_VERSION,
    startedAt: UNKNOWN_DATE,
    finishedAt: UNKNOWN_DATE,
    samples: sweep.points.flatMap((p) =>
      Object.entries(p.runs).flatMap(([variant, xs]) =>
        xs.map((value, i) => ({
          variant,
          repetition: i + 1,
          metric: sweep.metric,
          unit: sweep.unit,
          value,
          point: { param: sweep.param, value: p.value },
        })),
      ),
    ),
    notes: [
      {
        kind: 'published',
        text: `Figures published by ${file.source?.publisher ?? 'an article'}: ${file.source?.title ?? file.scenario}`,
      },
    ],
  };
  return [...machineRuns, { machine: id, submission }];
}
