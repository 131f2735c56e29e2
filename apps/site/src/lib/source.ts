/**
 * One read-only interface over the two places the site can read from: the results database
 * (through @tunelab/results-db, the same comparison code the API serves) or the API itself.
 * Everything read is validated with the contracts' zod schemas; a failure names the record and
 * the field, and fails the build.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  type AnswersQuery,
  linkAnswers,
  ScenarioAnswers,
  type ComparisonQuery,
  ComparisonResult,
  Coverage,
  ReleaseEventList,
  FindingList,
  type FindingsQuery,
  HardwareDetail,
  HardwareList,
  type HardwareSummary,
  linkComparisons,
  linkFinding,
  linkHardware,
  linkPage,
  linkRun,
  linkSimilar,
  RunDetail,
  RunList,
  ScenarioList,
  SimilarHardware,
  type SimilarHardwareQuery,
} from '@tunelab/contracts';
import { DatabaseOwnedError, openResultsDb, type ComparisonInputs, type ResultsDb } from '@tunelab/results-db';
import type { SiteConfig } from './env.ts';

export class SiteDataError extends Error {
  override name = 'SiteDataError';
}

export type SiteSource = {
  description: string;
  scenarios(): Promise<ScenarioList>;
  hardware(): Promise<HardwareSummary[]>;
  runs(): Promise<RunList['items']>;
  /** These runs' details, in the order asked: read in batches (a database read per batch, not per run). */
  runDetails(ids: readonly string[]): Promise<RunDetail[]>;
  hardwareDetail(fingerprint: string): Promise<HardwareDetail>;
  compare(q: ComparisonQuery): Promise<ComparisonResult>;
  findings(q: FindingsQuery): Promise<FindingList>;
  similar(fingerprint: string, q: SimilarHardwareQuery): Promise<SimilarHardware>;
  /** `similar` for several machines (the database aggregates the classes once), by fingerprint. */
  similarMany(fingerprints: readonly string[], q: SimilarHardwareQuery): Promise<Map<string, SimilarHardware>>;
  /** A scenario's answers, as GET /v1/answers gives them (null: the source has no folder for it). */
  answers(q: AnswersQuery): Promise<ScenarioAnswers | null>;
  /** Runs and open fleet jobs per scenario × hardware class × server major. */
  coverage(): Promise<Coverage>;
  /** Changes between PostgreSQL releases as events, each recorded once with its state (GET /v1/release-events). */
  releaseEvents(): Promise<ReleaseEventList>;
  /**
   * A database's comparisons and answers computed from inputs read once (results-db's
   * comparison-inputs.ts), so that a build can keep the inputs of the runs it built and read only
   * new runs'. Absent when reading through the API (each comparison is then a GET).
   */
  inputs?: {
    /** The inputs of these metrics, of every run or of `runIds` only. */
    load(metrics: readonly string[], runIds?: readonly string[]): Promise<ComparisonInputs>;
    compare(inputs: ComparisonInputs, q: ComparisonQuery): Promise<ComparisonResult>;
    answers(inputs: ComparisonInputs, q: AnswersQuery): Promise<ScenarioAnswers | null>;
    /** `releaseEvents()`, recorded from the answers computed from the inputs, not from every sample read again. */
    releaseEvents(inputs: ComparisonInputs): Promise<ReleaseEventList>;
  };
  close(): Promise<void>;
};

function describeIssues(err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/** Validates `value` against a contracts schema; the error says which record and which field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, what: string, where: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new SiteDataError(`${what} from ${where} failed validation: ${describeIssues(r.error)}`);
  return r.data;
}

/**
 * The run detail contract compiled by zod (`z.compile`, https://zod.dev/compile): a build validates
 * every run it renders, and the compiled schema takes a third of the time (~140 → ~45 µs per
 * detail). A detail it refuses is parsed again by the ordinary parser, so a refusal and its issues
 * are the contract's (as for the API's POST /v1/runs); compiled-run-detail.test.ts holds both to the
 * same verdicts, values and issues.
 */
export const RunDetailCompiled = z.compile(RunDetail);

/** Runs a read; a validation error thrown inside the shared query code gets the record's name. */
async function read<T>(what: string, where: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof SiteDataError) throw err;
    if (err instanceof z.ZodError)
      throw new SiteDataError(`${what} from ${where} failed validation: ${describeIssues(err)}`);
    const msg = err instanceof Error ? err.message : String(err);
    throw new SiteDataError(
      `reading ${what} from ${where} failed: ${msg.split('\n').filter(Boolean).slice(-3).join(' ')}`,
    );
  }
}

const PAGE = 500;
/** Runs read per database round (samples and series of every run in it come in one statement each). */
const RUN_BATCH = 250;

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T);
      }
    }),
  );
  return out;
}

async function openDbSource(config: Extract<SiteConfig, { kind: 'postgresql' | 'pglite' }>): Promise<SiteSource> {
  if (config.kind === 'pglite' && !existsSync(join(config.dataDir, 'PG_VERSION'))) {
    throw new SiteDataError(
      `no results database at ${config.dataDir} (TUNELAB_DATA_DIR). Create one with \`npm run admin -- migrate\` (or \`npm start\`), ` +
        'or point DATABASE_URL at PostgreSQL or TUNELAB_API_URL at a TuneLab API.',
    );
  }
  const where = config.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
  let db: ResultsDb;
  try {
    db =
      config.kind === 'pglite'
        ? // On this thread: the build has nothing else to do while it reads, and Vite bundles this module.
          await openResultsDb(undefined, {
            dataDir: config.dataDir,
            scenariosDir: config.scenariosDir,
            pgliteThread: 'main',
          })
        : await openResultsDb(config.url, { poolSize: 4, scenariosDir: config.scenariosDir });
  } catch (err) {
    // One process owns an embedded database (a running API): read through its API instead.
    if (err instanceof DatabaseOwnedError && err.owner?.url)
      return openApiSource({ ...config, kind: 'api', url: err.owner.url });
    if (err instanceof DatabaseOwnedError)
      throw new SiteDataError(
        `${err.message}, which serves no API to read through. Stop it (kill ${err.owner?.pid ?? 'it'}) and build again, or set TUNELAB_API_URL to a TuneLab API on that database.`,
      );
    throw new SiteDataError(
      `cannot open the results database (${where}): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (!(await read('the schema check', where, () => db.hasSchema()))) {
    await db.close();
    throw new SiteDataError(
      `${where} has no TuneLab tables; apply the migrations first (\`npm run admin -- migrate\`)`,
    );
  }
  return dbSource(db, where);
}

/** A SiteSource over an open results database: every record validated against its contract, every failure named. */
function dbSource(db: ResultsDb, where: string): SiteSource {
  return {
    description: db.description,
    scenarios: () =>
      read('the scenario list', where, async () =>
        validate(ScenarioList, await db.listScenarios(), 'the scenario list', where),
      ),
    hardware: () =>
      read('the hardware list', where, () =>
        allPages<HardwareSummary>(async (cursor) =>
          validate(
            HardwareList,
            linkPage(await db.listHardware({ limit: PAGE, ...(cursor ? { cursor } : {}) }), linkHardware),
            'a hardware list page',
            where,
          ),
        ),
      ),
    runs: () =>
      read('the run list', where, () =>
        allPages<RunList['items'][number]>(async (cursor) =>
          validate(
            RunList,
            linkPage(await db.listRuns({ limit: PAGE, source: 'all', ...(cursor ? { cursor } : {}) }), linkRun),
            'a run list page',
            where,
          ),
        ),
      ),
    runDetails: (ids) => runDetailsOf(db, ids, where),
    hardwareDetail: (fp) =>
      read(`hardware profile ${fp}`, where, async () => {
        const h = await db.getHardware(fp);
        if (!h) throw new SiteDataError(`hardware profile ${fp} is listed but missing in ${where}`);
        return validate(HardwareDetail, linkHardware(h), `hardware profile ${fp}`, where);
      }),
    compare: (q) =>
      read('comparisons', where, async () =>
        validate(ComparisonResult, linkComparisons(await db.compare(q)), 'comparisons', where),
      ),
    findings: (q) =>
      read('findings', where, async () =>
        validate(FindingList, { items: (await db.listFindings(q)).items.map(linkFinding) }, 'findings', where),
      ),
    similar: (fp, q) =>
      read(`similar hardware for ${fp}`, where, async () => {
        const s = await db.findSimilarHardware(fp, q);
        if (!s) throw new SiteDataError(`hardware profile ${fp} is listed but missing in ${where}`);
        return validate(SimilarHardware, linkSimilar(s), `similar hardware for ${fp}`, where);
      }),
    similarMany: (fps, q) =>
      read('similar hardware', where, async () => {
        const found = await db.findSimilarHardwareMany(fps, q);
        return new Map(
          fps.map((fp) => {
            const s = found.get(fp);
            if (!s) throw new SiteDataError(`hardware profile ${fp} is listed but missing in ${where}`);
            return [fp, validate(SimilarHardware, linkSimilar(s), `similar hardware for ${fp}`, where)];
          }),
        );
      }),
    answers: (q) =>
      read(`answers for ${q.scenario}`, where, async () => {
        const a = await db.answers(q);
        return a ? validate(ScenarioAnswers, linkAnswers(a), `answers for ${q.scenario}`, where) : null;
      }),
    coverage: () => read('coverage', where, async () => validate(Coverage, await db.coverage(), 'coverage', where)),
    releaseEvents: () =>
      read('release events', where, async () =>
        validate(ReleaseEventList, await db.releaseEvents(), 'release events', where),
      ),
    inputs: {
      load: (metrics, runIds) =>
        read(`the samples of ${runIds ? `${runIds.length} runs` : 'every run'}`, where, () =>
          db.loadInputs(metrics, runIds),
        ),
      compare: (inputs, q) =>
        read('comparisons', where, async () =>
          validate(ComparisonResult, linkComparisons(await db.compareInputs(inputs, q)), 'comparisons', where),
        ),
      answers: (inputs, q) =>
        read(`answers for ${q.scenario}`, where, async () => {
          const a = await db.answerInputs(inputs, q);
          return a ? validate(ScenarioAnswers, linkAnswers(a), `answers for ${q.scenario}`, where) : null;
        }),
      releaseEvents: (inputs) =>
        read('release events', where, async () =>
          validate(ReleaseEventList, await db.releaseEventsFromInputs(inputs), 'release events', where),
        ),
    },
    close: () => db.close(),
  };
}

/** Every item of a paged list, following `nextCursor`. */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | null }>) {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const p = await page(cursor);
    items.push(...p.items);
    cursor = p.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** Runs' details in batches; a record that fails validation is named (the batch's runs read again one by one). */
async function runDetailsOf(db: ResultsDb, ids: readonly string[], where: string): Promise<RunDetail[]> {
  const out: RunDetail[] = [];
  for (let i = 0; i < ids.length; i += RUN_BATCH) {
    const batch = ids.slice(i, i + RUN_BATCH);
    const rows = await read(`runs ${batch[0]} … ${batch.at(-1)}`, where, () =>
      db.getRuns(batch).catch(async (err: unknown) => {
        for (const id of batch) await read(`run ${id}`, where, () => db.getRun(id));
        throw err;
      }),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of batch) {
      const r = byId.get(id);
      if (!r) throw new SiteDataError(`run ${id} is listed but missing in ${where}`);
      out.push(validate(RunDetailCompiled, linkRun(r), `run ${id}`, where));
    }
  }
  return out;
}

function openApiSource(config: Extract<SiteConfig, { kind: 'api' }>): SiteSource {
  const where = `the API at ${config.url}`;
  async function get<T extends z.ZodType>(path: string, schema: T, what: string): Promise<z.infer<T>> {
    return read(what, where, async () => {
      const res = await fetch(`${config.url}${path}`, { headers: { accept: 'application/json' } });
      if (!res.ok)
        throw new SiteDataError(
          `GET ${path} on ${where} answered ${res.status} ${res.statusText}: ${(await res.text()).slice(0, 300)}`,
        );
      return validate(schema, await res.json(), what, `${where} (GET ${path})`);
    });
  }
  // A list (answers' `major`) is written as the API reads it: comma-separated.
  const qs = (q: Record<string, string | number | boolean | readonly number[] | undefined>) =>
    new URLSearchParams(Object.entries(q).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))).toString();
  async function pages<T>(
    path: string,
    schema: z.ZodType<{ items: T[]; nextCursor: string | null }>,
    what: string,
  ): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: T[]; nextCursor: string | null } = await get(
        `${path}${path.includes('?') ? '&' : '?'}${qs({ limit: PAGE, cursor: cursor ?? undefined })}`,
        schema,
        what,
      );
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }
  return {
    description: `TuneLab API at ${config.url}`,
    scenarios: () => get('/v1/scenarios', ScenarioList, 'the scenario list'),
    hardware: () => pages('/v1/hardware', HardwareList, 'the hardware list'),
    runs: () => pages('/v1/runs?source=all', RunList, 'the run list'),
    runDetails: (ids) => mapLimit(ids, 8, (id) => get(`/v1/runs/${encodeURIComponent(id)}`, RunDetail, `run ${id}`)),
    hardwareDetail: (fp) => get(`/v1/hardware/${fp}`, HardwareDetail, `hardware profile ${fp}`),
    compare: (q) => get(`/v1/comparisons?${qs(q)}`, ComparisonResult, 'comparisons'),
    findings: (q) => get(`/v1/findings?${qs(q)}`, FindingList, 'findings'),
    similar: (fp, q) => get(`/v1/hardware/${fp}/similar?${qs(q)}`, SimilarHardware, `similar hardware for ${fp}`),
    similarMany: async (fps, q) =>
      new Map(
        await mapLimit(
          fps,
          8,
          async (fp) =>
            [
              fp,
              await get(`/v1/hardware/${fp}/similar?${qs(q)}`, SimilarHardware, `similar hardware for ${fp}`),
            ] as const,
        ),
      ),
    answers: (q) =>
      read(`answers for ${q.scenario}`, where, async () => {
        const path = `/v1/answers?${qs(q)}`;
        const res = await fetch(`${config.url}${path}`, { headers: { accept: 'application/json' } });
        // A scenario the API has no folder for answers 404: the site then shows no answers for it.
        if (res.status === 404) return null;
        if (!res.ok)
          throw new SiteDataError(
            `GET ${path} on ${where} answered ${res.status} ${res.statusText}: ${(await res.text()).slice(0, 300)}`,
          );
        return validate(ScenarioAnswers, await res.json(), `answers for ${q.scenario}`, `${where} (GET ${path})`);
      }),
    coverage: () => get('/v1/coverage', Coverage, 'coverage'),
    releaseEvents: () => get('/v1/release-events', ReleaseEventList, 'release events'),
    close: async () => {},
  };
}

export async function openSiteSource(config: SiteConfig): Promise<SiteSource> {
  return config.kind === 'api' ? openApiSource(config) : openDbSource(config);
}
