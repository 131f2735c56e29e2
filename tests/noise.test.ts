/**
 * Noise, measured and shown: two real `tunelab run` processes against the local
 * PostgreSQL submit to a real API process — one beside four CPU-burning child processes, one
 * without them. The machine is shared (its own load may flag both), so the quiet run is held
 * against the busy one rather than against absolute thresholds: the busy run is flagged noisy and
 * its CPU probe had less of a CPU. So that only the test's own competitors decide that, both runs
 * and the four loops run at a higher priority than the rest of the machine (nice −10: CFS weight
 * 9548 against 1024), and the busy run and its loops share one CPU (taskset): then the busy run
 * gets at most a fifth of a CPU while the quiet one gets most of one, whatever else the machine
 * runs (one `npm run test:busy` at load 11 had the quiet run's probe on a CPU 20 % of its time, the
 * busy one's 24 %). Without root, nice cannot raise the priority and says so; the runs go on. Answers count the runs and the flagged ones, `noisy=exclude`
 * keeps them (both measured in paired blocks), a bad `noisy` is a 400 naming the field, a run without noise still stores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { openResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { RunDetail, RunList, ScenarioAnswers } from '@tunelab/contracts';
import { apiProcess, runTunelab, scratch, TARGET } from './support.ts';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const SCENARIO = 'vacuum-full-rewrite';
const { tmp, cleanups } = await scratch('tunelab-noise-');

let url = '';
let token = '';
const runs: Record<'quiet' | 'busy', { file: string; stdout: string }> = {
  quiet: { file: '', stdout: '' },
  busy: { file: '', stdout: '' },
};

/** Above the rest of the machine (see the top); `taskset -c 0` then `nice` both exec: one process each. */
const PRIORITY = ['nice', '-n', '-10'];
const ON_CPU_0 = ['taskset', '-c', '0'];

/** Four processes that each keep CPU 0 busy until killed (by their own pids). */
function busyLoops(n: number): ChildProcess[] {
  const children = Array.from({ length: n }, () =>
    spawn(ON_CPU_0[0]!, [...ON_CPU_0.slice(1), ...PRIORITY, process.execPath, '-e', 'for (;;) {}'], {
      stdio: 'ignore',
    }),
  );
  cleanups.push(async () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));
  return children;
}

async function run(which: 'quiet' | 'busy') {
  const file = path.join(tmp, `${which}.json`);
  const r = await runTunelab(
    [
      'run',
      SCENARIO,
      '--target',
      TARGET,
      '--param',
      'rows=1000',
      '--repetitions',
      '2',
      '--out',
      file,
      '--api',
      url,
      '--token',
      token,
    ],
    { TUNELAB_RUNS_DIR: path.join(tmp, 'runs'), TUNELAB_SUBMIT_BACKOFF_MS: '50' },
    which === 'busy' ? [...ON_CPU_0, ...PRIORITY] : PRIORITY,
  );
  expect(r.code, r.stderr).toBe(0);
  runs[which] = { file, stdout: r.stdout };
}

const get = async (p: string) => {
  const res = await fetch(`${url}${p}`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as unknown };
};

/** The stored run of a run file: the one that started when the file's submission did. */
async function detailOf(file: string) {
  const { submission } = JSON.parse(await readFile(file, 'utf8')) as { submission: { startedAt: string } };
  const list = RunList.parse((await get(`/v1/runs?scenario=${SCENARIO}`)).body).items;
  const item = list.find((r) => Date.parse(r.startedAt) === Date.parse(submission.startedAt));
  expect(item, `no stored run started at ${submission.startedAt}`).toBeDefined();
  return RunDetail.parse((await get(`/v1/runs/${item!.id}`)).body);
}

beforeAll(async () => {
  const database = await createTestDatabase('tunelab_noise');
  cleanups.push(() => database.drop());
  const db = await openResultsDb(database.url);
  await db.migrate();
  token = (await db.createRunner(`noise-${Date.now()}`)).token;
  await db.close();
  url = await apiProcess({ DATABASE_URL: database.url }, cleanups).start();

  await run('quiet');
  const loops = busyLoops(4);
  try {
    // Let the 1-minute load average see them before the run measures.
    await new Promise((r) => setTimeout(r, 3000));
    await run('busy');
  } finally {
    loops.forEach((c) => c.kill('SIGKILL'));
  }
});

describe('noise of a run beside four busy loops, against one without them', () => {
  it('flags the busy run noisy; its CPU probe had less of a CPU than the quiet run’s', async () => {
    const quiet = await detailOf(runs.quiet.file);
    const busy = await detailOf(runs.busy.file);
    console.log(`quiet: ${JSON.stringify(quiet.noise)}\nbusy: ${JSON.stringify(busy.noise)}`);
    expect(quiet.id).not.toBe(busy.id);
    expect(quiet.noise).not.toBeNull();
    expect(busy.noise).not.toBeNull();
    expect(busy.noise!.noisy, JSON.stringify(busy.noise)).toBe(true);
    expect(busy.noise!.reasons.length).toBeGreaterThan(0);
    expect(busy.noise!.cpuProbe.cpuSharePct).toBeLessThan(quiet.noise!.cpuProbe.cpuSharePct);
    // Not the load average: on a shared machine the others' load swings by more than four.
    // What the probes cost the run, said by the run.
    for (const d of [quiet, busy]) expect(d.noise!.overheadSeconds).toBeGreaterThan(0);
    // The printed report ends with the noise line.
    expect(runs.busy.stdout).toMatch(/noise: noisy \(/);
    expect(runs.quiet.stdout).toMatch(/noise: (noisy|quiet)/);
  });

  it('answers count the runs and the flagged ones; noisy=exclude keeps runs measured in paired blocks', async () => {
    const all = ScenarioAnswers.parse((await get(`/v1/answers?scenario=${SCENARIO}`)).body);
    expect(all.noise.policy).toBe('include');
    expect(all.noise.runs).toBe(2);
    expect(all.noise.noisy).toBeGreaterThanOrEqual(1);
    expect(all.noise.excluded).toBe(0);
    const flagged = all.noise.noisy;
    for (const g of all.groups) expect(g.group.noise.runs).toBe(g.group.runCount);

    // Both runs measured in paired blocks: a noisy moment slows both sides of a block's ratios and
    // the interval carries it, so exclude leaves neither out (a run without blocks it would).
    expect(all.noise.paired).toBe(flagged);
    const kept = ScenarioAnswers.parse((await get(`/v1/answers?scenario=${SCENARIO}&noisy=exclude`)).body);
    expect(kept.noise).toMatchObject({ policy: 'exclude', runs: 2, noisy: flagged, paired: flagged, excluded: 0 });
    expect(kept.leftOut).toEqual([]);

    const compared = (await get(`/v1/comparisons?scenario=${SCENARIO}&groupBy=class&noisy=exclude`)).body as {
      noise: { excluded: number; paired: number };
    };
    expect(compared.noise).toMatchObject({ excluded: 0, paired: flagged });
  });

  it('a bad noisy value is a 400 problem naming the field', async () => {
    for (const p of [`/v1/answers?scenario=${SCENARIO}&noisy=yes`, `/v1/comparisons?noisy=EXCLUDE`]) {
      const { status, type, body } = await get(p);
      expect(status).toBe(400);
      expect(type).toMatch(/application\/problem\+json/);
      expect(JSON.stringify(body)).toMatch(/noisy/);
    }
  });

  it('a run without noise figures (an older runner) is stored and counted as unmeasured', async () => {
    const { submission } = JSON.parse(await readFile(runs.quiet.file, 'utf8')) as {
      submission: Record<string, unknown>;
    };
    delete submission['noise'];
    const res = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'idempotency-key': 'no-noise-1',
      },
      body: JSON.stringify(submission),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(RunDetail.parse((await get(`/v1/runs/${id}`)).body).noise).toBeNull();
    const all = ScenarioAnswers.parse((await get(`/v1/answers?scenario=${SCENARIO}`)).body);
    expect(all.noise.runs).toBe(3);
    expect(all.noise.unmeasured).toBe(1);
  });
});
