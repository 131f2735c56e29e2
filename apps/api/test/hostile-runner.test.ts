/**
 * A crafted run changes only its own runner's machine, class and answers: over the real
 * API (listening on a port) and a real PostgreSQL results database, an honest runner submits runs,
 * every answer its owner reads for their machine is recorded — GET /v1/answers with `like=` their
 * fingerprint, their hardware page, its similar list — then a hostile runner (another token) copies
 * the honest machine's spec and submits five runs that say the opposite. The honest owner's answers
 * are byte-identical; the class answer, which pools both machines' runs, changes only in a labelled
 * way: the pair says its two runners contradict each other and gives no verdict (`contested`),
 * instead of the hostile runner's five runs outvoting the honest one's two.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HardwareDetail, RunAccepted, ScenarioAnswers, SimilarHardware } from '@tunelab/contracts';
import { post, startApi } from '../src/testing.ts';
import { FIXTURE, clone } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const SCENARIO = 'vacuum-index-cleanup';

type Api = Awaited<ReturnType<typeof startApi>>;
let api: Api;

/** The fixture's run on `day`, its durations of each pair's candidate times `candidateFactor` (1: as measured). */
function submission(day: number, candidateFactor = 1, machine?: { cpuModel: string; memoryGb: number }) {
  const doc = clone(FIXTURE);
  if (machine) {
    doc.hardware.cpuModel = machine.cpuModel;
    doc.hardware.memoryBytes = machine.memoryGb * 1024 ** 3;
  }
  doc.startedAt = `2026-11-${day}T04:00:00.000Z`;
  doc.finishedAt = `2026-11-${day}T05:00:00.000Z`;
  for (const s of doc.samples as { variant: string; metric: string; value: number }[])
    if (s.metric === 'duration' && (s.variant === '1-2' || s.variant === '2-2')) s.value *= candidateFactor;
  return doc;
}

async function submit(token: string, key: string, body: unknown): Promise<RunAccepted> {
  const res = await post(api.url, token, body, { 'idempotency-key': key });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return JSON.parse(text) as RunAccepted;
}

async function read(path: string): Promise<string> {
  const res = await fetch(api.url + path);
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(200);
  return text;
}

/** Everything the honest owner reads for their machine, as the API's bytes. */
async function honestReads(fingerprint: string) {
  const likeMine = JSON.parse(await read(`/v1/answers?scenario=${SCENARIO}&like=${fingerprint}`)) as ScenarioAnswers;
  const similar = JSON.parse(await read(`/v1/hardware/${fingerprint}/similar`)) as SimilarHardware;
  return {
    likeMine: JSON.stringify(likeMine.likeMine),
    hardwarePage: await read(`/v1/hardware/${fingerprint}`),
    similarMachine: JSON.stringify(similar.machine),
    similarOrder: JSON.stringify(similar.items.map((i) => [i.class, i.distance, i.sameStorage, i.basis])),
  };
}

const pairOf = (a: ScenarioAnswers, cls: string, baseline: string) =>
  a.groups.find((g) => g.group.hardware.class === cls)!.pairs.find((p) => p.baseline === baseline)!;

beforeAll(async () => {
  api = await startApi({}, 'tl_hostile_api', { scenariosDir: SCENARIOS });
});
afterAll(async () => {
  await api?.close();
});

describe('a hostile runner with a copied spec', () => {
  it("leaves the honest owner's answers byte-identical and labels the class answer it contests", async () => {
    const honest = await api.db.createRunner('honest-owner');
    const hostile = await api.db.createRunner('copycat');
    // The honest machine: two runs, 1-2 faster than 1-1 in every repetition.
    const mine = await submit(honest.token, 'honest-1', submission(10));
    await submit(honest.token, 'honest-2', submission(11, 0.98));
    const fingerprint = mine.hardware.fingerprint;
    const cls = mine.hardware.class;

    const before = await honestReads(fingerprint);
    const likeBefore = JSON.parse(before.likeMine) as NonNullable<ScenarioAnswers['likeMine']>;
    expect(likeBefore.mine!.runs).toBe(2);
    expect(likeBefore.answers).toEqual(likeBefore.mine!.answers);
    expect(likeBefore.sentence).toMatch(/The answers are this machine's own, from its 2 runs here/);
    const classBefore = JSON.parse(await read(`/v1/answers?scenario=${SCENARIO}`)) as ScenarioAnswers;
    const honestPair = pairOf(classBefore, cls, '1-1');
    expect(honestPair.measured!.verdict.kind).toBe('faster');
    expect(honestPair.runners).toBeUndefined();

    // The hostile runner: the honest machine's spec (its public hardware) and five runs in which
    // 1-2 takes 2.5× the honest runs' time — slower than 1-1, the opposite answer.
    const page = JSON.parse(before.hardwarePage) as HardwareDetail;
    expect(page.cpuModel).toBe(FIXTURE.hardware.cpuModel);
    const theirs = [];
    for (const day of [12, 13, 14, 15, 16])
      theirs.push(await submit(hostile.token, `copycat-${day}`, submission(day, 2.5)));
    expect(theirs.every((r) => r.hardware.class === cls)).toBe(true);
    expect(theirs[0]!.hardware.fingerprint).not.toBe(fingerprint);

    const after = await honestReads(fingerprint);
    expect(after).toEqual(before);

    // The class pools both machines: without weighing runners its 2 + 5 runs would say "slower";
    // the pair now says that its runners contradict each other and gives no verdict.
    const classAfter = JSON.parse(await read(`/v1/answers?scenario=${SCENARIO}`)) as ScenarioAnswers;
    const group = classAfter.groups.find((g) => g.group.hardware.class === cls)!;
    expect(group.group.runners).toBe(2);
    expect(group.group.runCount).toBe(7);
    const pooled = pairOf(classAfter, cls, '1-1');
    expect(pooled.measured!.verdict.kind).toBe('slower');
    expect(pooled.runners).toMatchObject({
      count: 2,
      standing: 'contested',
      support: 1,
      verdicts: expect.arrayContaining([
        { kind: 'faster', runners: 1 },
        { kind: 'slower', runners: 1 },
      ]),
    });
    expect(
      pooled.agreement === 'inconclusive' || pooled.agreement === 'not-comparable' || pooled.agreement === 'no-article',
    ).toBe(true);
    expect(pooled.advice).toMatch(
      /^no advice from this class: 2 runners answer 1-2 vs 1-1 on their own runs: .* contested/,
    );
    // The advice carries the runners' sentence; the reasons name the rule once, not the sentence again.
    expect(pooled.reasons.filter((r) => r.includes(pooled.runners!.sentence))).toEqual([]);
    expect(pooled.reasons.filter((r) => r.startsWith('runners: contested'))).toHaveLength(1);
  });

  it('two honest runners of one class that agree keep the pooled verdict, labelled agreed', async () => {
    // Two machines of their own class (16 GB), each its owner's, two runs each.
    const [a, b] = await Promise.all([api.db.createRunner('owner-a'), api.db.createRunner('owner-b')]);
    const A = { cpuModel: 'Agreeing CPU A', memoryGb: 16 };
    const B = { cpuModel: 'Agreeing CPU B', memoryGb: 16 };
    const first = await submit(a.token, 'agree-a1', submission(20, 1, A));
    await submit(a.token, 'agree-a2', submission(21, 0.99, A));
    const cls = first.hardware.class;
    const alone = pairOf(JSON.parse(await read(`/v1/answers?scenario=${SCENARIO}`)) as ScenarioAnswers, cls, '1-1');
    expect(alone.runners).toBeUndefined();
    await submit(b.token, 'agree-b1', submission(22, 0.97, B));
    await submit(b.token, 'agree-b2', submission(23, 0.96, B));
    const pair = pairOf(JSON.parse(await read(`/v1/answers?scenario=${SCENARIO}`)) as ScenarioAnswers, cls, '1-1');
    expect(pair.measured!.verdict.kind).toBe('faster');
    expect(pair.agreement).toBe(alone.agreement);
    expect(pair.advice).toBe(alone.advice);
    expect(pair.runners).toMatchObject({
      count: 2,
      support: 2,
      standing: 'agreed',
      verdicts: [{ kind: 'faster', runners: 2 }],
    });
  });
});
