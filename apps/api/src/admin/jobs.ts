// Bodies of `tunelab admin jobs request|list|cancel`. With TUNELAB_API_URL (and an operator token
// in TUNELAB_OPERATOR_TOKEN) they go through the running API — the way to reach an embedded
// database a running API owns; otherwise straight to the results database's fleet queue.
import { Job, JobList, JobReleasesRequest, JobRequest, Problem, type JobState } from '@tunelab/contracts';
import { JobRequestError, type ResultsDb } from '@tunelab/results-db';

type Out = { out: (line: string) => void; err: (line: string) => void };
export type JobsVia = { api: { url: string; token: string | undefined } } | { db: () => Promise<ResultsDb> };

export type JobRequestFlags = {
  param?: Record<string, string>;
  repetitions?: number;
  server?: number;
  /** `--releases 16.4,17.0`: one job per release (POST /v1/jobs/releases). */
  releases?: string;
  class?: string;
  runner?: string;
  labels?: string;
  priority?: number;
};

function line(j: Job): string {
  const target = j.for
    ? 'class' in j.for
      ? j.for.class
      : 'runner' in j.for
        ? j.for.runner
        : j.for.labels.join(',')
    : 'any';
  return `${j.id}  ${j.state.padEnd(9)} ${j.scenario} ${JSON.stringify(j.params)} for ${target}${j.release ? ` release ${j.release}` : j.server ? ` server ${j.server}` : ''}  attempts ${j.attempts}${j.runner ? `  runner ${j.runner}` : ''}${j.runId ? `  run ${j.runId}` : ''}${j.error ? `  error: ${j.error}` : ''}`;
}

async function viaApi(
  api: { url: string; token: string | undefined },
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(new URL(route, api.url.endsWith('/') ? api.url : `${api.url}/`), {
    method,
    headers: {
      ...(api.token ? { authorization: `Bearer ${api.token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

function problemText(r: { status: number; json: unknown }): string {
  const p = Problem.safeParse(r.json);
  if (!p.success) return `HTTP ${r.status}`;
  return [p.data.detail ?? p.data.title, ...(p.data.errors ?? []).map((e) => `  ${e.path}: ${e.message}`)].join('\n');
}

async function withFleet<T>(
  open: () => Promise<ResultsDb>,
  fn: (fleet: ReturnType<ResultsDb['openFleet']>) => Promise<T>,
) {
  const db = await open();
  const fleet = db.openFleet();
  try {
    await fleet.start();
    return await fn(fleet);
  } finally {
    await fleet.stop().catch(() => undefined);
    await db.close();
  }
}

/** The request the flags make: one job, or with `--releases` one per release; a sentence when the flags are wrong. */
function requestOf(
  scenario: string,
  flags: JobRequestFlags,
): { one: JobRequest } | { releases: JobReleasesRequest } | { error: string } {
  const chosen = [flags.class, flags.runner, flags.labels].filter((x) => x !== undefined);
  if (chosen.length > 1) return { error: 'give at most one of --class, --runner, --labels' };
  if (flags.releases !== undefined && flags.server !== undefined)
    return { error: 'give --server or --releases, not both (a release names its major)' };
  const common = {
    scenario,
    params: flags.param ?? {},
    ...(flags.repetitions !== undefined ? { repetitions: flags.repetitions } : {}),
    ...(flags.class !== undefined ? { for: { class: flags.class } } : {}),
    ...(flags.runner !== undefined ? { for: { runner: flags.runner } } : {}),
    ...(flags.labels !== undefined ? { for: { labels: flags.labels.split(',').filter(Boolean) } } : {}),
    ...(flags.priority !== undefined ? { priority: flags.priority } : {}),
  };
  const issues = (e: { issues: { path: PropertyKey[]; message: string }[] }) => ({
    error: e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
  });
  if (flags.releases !== undefined) {
    const parsed = JobReleasesRequest.safeParse({ ...common, releases: flags.releases.split(',').filter(Boolean) });
    return parsed.success ? { releases: parsed.data } : issues(parsed.error);
  }
  const parsed = JobRequest.safeParse({ ...common, ...(flags.server !== undefined ? { server: flags.server } : {}) });
  return parsed.success ? { one: parsed.data } : issues(parsed.error);
}

export async function requestJobCommand(
  via: JobsVia,
  scenario: string,
  flags: JobRequestFlags,
  io: Out,
): Promise<number> {
  const request = requestOf(scenario, flags);
  if ('error' in request) {
    io.err(`tunelab admin jobs request: ${request.error}`);
    return 2;
  }
  if ('api' in via) {
    const r =
      'one' in request
        ? await viaApi(via.api, 'POST', 'v1/jobs', request.one)
        : await viaApi(via.api, 'POST', 'v1/jobs/releases', request.releases);
    if (r.status !== 201) {
      io.err(`tunelab admin jobs request: the API refused the job: ${problemText(r)}`);
      return r.status === 400 ? 2 : 1;
    }
    for (const j of 'one' in request ? [Job.parse(r.json)] : JobList.parse(r.json).items) io.out(line(j));
    return 0;
  }
  try {
    const jobs = await withFleet(via.db, async (fleet) =>
      'one' in request ? [await fleet.requestJob(request.one, null)] : fleet.requestReleases(request.releases, null),
    );
    for (const j of jobs) io.out(line(j));
    return 0;
  } catch (e) {
    if (e instanceof JobRequestError) {
      io.err(`tunelab admin jobs request: ${e.field}: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

export async function listJobsCommand(via: JobsVia, state: JobState | undefined, io: Out): Promise<number> {
  let jobs: Job[];
  if ('api' in via) {
    const r = await viaApi(via.api, 'GET', `v1/jobs?limit=1000${state ? `&state=${state}` : ''}`);
    if (r.status !== 200) {
      io.err(`tunelab admin jobs list: ${problemText(r)}`);
      return 1;
    }
    jobs = JobList.parse(r.json).items;
  } else {
    jobs = await withFleet(via.db, (fleet) => fleet.listJobs({ state, limit: 1000 }));
  }
  for (const j of jobs) io.out(line(j));
  if (!jobs.length) io.out(`no jobs${state ? ` in state ${state}` : ''}`);
  return 0;
}

export async function cancelJobCommand(via: JobsVia, id: string, io: Out): Promise<number> {
  if ('api' in via) {
    const r = await viaApi(via.api, 'DELETE', `v1/jobs/${encodeURIComponent(id)}`);
    if (r.status !== 200) {
      io.err(`tunelab admin jobs cancel: ${problemText(r)}`);
      return 1;
    }
    io.out(line(Job.parse(r.json)));
    return 0;
  }
  const job = await withFleet(via.db, (fleet) => fleet.cancelJob(id));
  if (!job) {
    io.err(`tunelab admin jobs cancel: no job with id ${id}`);
    return 1;
  }
  io.out(line(job));
  return 0;
}
