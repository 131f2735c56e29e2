/**
 * TuneLab's answer for a table, for `tunelab advise`. The one place that asks the API: GET
 * /v1/answers per scenario, engine and major, with the asker's machine ("hardware like mine":
 * cores, memory, storage and the probe's figures), so the API ranks the hardware classes as it
 * does for GET /v1/similar and the site (`@tunelab/answers` similar.ts) — advise never ranks
 * hardware itself. On the nearest class the API calls like the machine, the group measured at the
 * nearest scale; for a scenario that declares its scale parameter, with `at=PARAM:VALUE` too, so
 * the answer is given at the table's own scale (fitted across every measured scale, with its
 * intervals — or refused, with the reason, when the table is too far outside what was measured).
 */
import {
  ENGINE_NAMES,
  ScenarioAnswers,
  similarParamsOfProbe,
  type MeasuredHardware,
  type StorageKind,
} from '@tunelab/contracts';

/** The probe's figures advise sends as the machine's (GET /v1/similar's names). */
export type MachineFigures = Pick<
  MeasuredHardware,
  'fsyncP50Us' | 'readIopsQd1' | 'readIopsQd16' | 'seqWriteMBps' | 'cpuScore' | 'cpuWorkload'
>;

/**
 * The asker's hardware: `storage` is the kernel's kind (or --storage); `figures`, what the probe
 * measured (null when not probed: hardware given as options); `disk`, how a class names this disk
 * (the measured tier, "NVMe-like"), for the words.
 */
export type Hardware = {
  cores: number;
  memoryGb: number;
  storage: StorageKind;
  figures?: MachineFigures | null;
  disk?: string;
};

export type AnswerQuestion = {
  scenario: string;
  engine: string;
  major: number;
  /** The scale parameter (rows, tables, warehouses) and the table's value of it. */
  param: string;
  value: number;
  hardware: Hardware;
  /** Whether `param` is the scale parameter the scenario declares (scenario.yaml `scale`): the API answers at `value`. */
  declaredScale?: boolean;
  /**
   * The other parameters the table's server implies (InnoDB's buffer_pool_mb): a group measured
   * with these values is preferred, and an answer measured with others says which differ.
   */
  params?: Record<string, number>;
};

/** The answer at the table's own scale (GET /v1/answers?at=…), per declared pair. */
export type AtScalePair = {
  baseline: string;
  candidate: string;
  status: 'answered' | 'refused' | 'insufficient-data';
  /** The API's sentence: the ratio with its intervals, or why it does not answer there. */
  sentence: string;
  ratio: number | null;
  ci95: { low: number | null; high: number | null } | null;
  pi95: { low: number | null; high: number | null } | null;
};

export type PairSummary = {
  baseline: string;
  candidate: string;
  /** "prefer 1-2 (…) over 1-1 (…)", or why there is no preference (the answer engine's words). */
  advice: string;
  /** The candidate's improvement over the baseline (0.3 = 30% better), with its 95% interval. */
  improvement: number | null;
  ci95: { low: number | null; high: number | null } | null;
};

export type AnswerNear =
  | {
      status: 'answered';
      hardwareClass: string;
      /** The scale the answer was measured at, and whether it is within NEAR_SCALE of the table's. */
      measuredAt: number;
      near: boolean;
      runs: number;
      group: string;
      pairs: PairSummary[];
      /** At the table's own scale, on the same class, major and other parameters (empty when the API gave none). */
      atScale: AtScalePair[];
      /** The asked parameters the answer was measured with other values of ("buffer_pool_mb = 16, yours 128"). */
      differs: string[];
      sentence: string;
    }
  | { status: 'not-measured' | 'no-api' | 'unavailable'; sentence: string };

/** A measured scale within this factor of the table's (either way) is "near". */
export const NEAR_SCALE = 10;

const fmt = (n: number) =>
  n >= 1e9
    ? `${+(n / 1e9).toFixed(1)} G`
    : n >= 1e6
      ? `${+(n / 1e6).toFixed(1)} M`
      : n >= 1e4
        ? `${+(n / 1e3).toFixed(0)}k`
        : n.toLocaleString('en-US');

/** Answers questions from the API at `apiUrl` (null: every answer says how to get one). */
export function answerSource(apiUrl: string | null): (q: AnswerQuestion) => Promise<AnswerNear> {
  const cache = new Map<string, Promise<ScenarioAnswers | string>>();
  return async (q) => {
    if (!apiUrl)
      return {
        status: 'no-api',
        sentence: 'no answer asked: give --api URL (or TUNELAB_API_URL) for TuneLab’s answers',
      };
    const key = `${q.scenario}/${q.engine}/${q.major}${q.declaredScale ? `@${q.param}:${Math.round(q.value)}` : ''}`;
    let pending = cache.get(key);
    if (!pending) cache.set(key, (pending = fetchAnswers(apiUrl, q)));
    const answers = await pending;
    if (typeof answers === 'string') return { status: 'unavailable', sentence: answers };
    return lookupAnswer(answers, q);
  };
}

async function fetchAnswers(apiUrl: string, q: AnswerQuestion): Promise<ScenarioAnswers | string> {
  // Relative to the API's URL, a path prefix included (as the submit client does).
  const url = new URL('v1/answers', apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`);
  url.search = new URLSearchParams({
    scenario: q.scenario,
    engine: q.engine,
    major: String(q.major),
    ...(q.declaredScale && q.value >= 1 ? { at: `${q.param}:${Math.round(q.value)}` } : {}),
    ...machineParams(q.hardware),
  }).toString();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(30_000), headers: { accept: 'application/json' } });
    const body: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const detail = (body as { detail?: string } | null)?.detail;
      return `the API at ${apiUrl} answered ${response.status}${detail ? `: ${detail}` : ''}`;
    }
    const parsed = ScenarioAnswers.safeParse(body);
    return parsed.success ? parsed.data : `the API at ${apiUrl} sent answers this runner cannot read`;
  } catch (e) {
    return `the API at ${apiUrl} did not answer (${(e as Error).message})`;
  }
}

/** The machine as GET /v1/answers takes it ("hardware like mine"): the API ranks the classes against it. */
export function machineParams(h: Hardware): Record<string, string> {
  // The probe's figures under GET /v1/similar's names (contracts' one mapping); the storage is `machineStorage` here.
  const { storage: _storage, ...params } = similarParamsOfProbe(h.figures ?? NOT_PROBED, {
    cores: h.cores,
    memoryGb: h.memoryGb,
  });
  return { ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])), machineStorage: h.storage };
}
const NOT_PROBED: MachineFigures = {
  fsyncP50Us: null,
  readIopsQd1: null,
  readIopsQd16: null,
  seqWriteMBps: null,
  cpuScore: null,
  cpuWorkload: '',
};

type Group = ScenarioAnswers['groups'][number];
type ScaleGroup = NonNullable<ScenarioAnswers['atScale']>['groups'][number];
/** What the lookup reads of GET /v1/answers: a ScenarioAnswers is one, and a test can give just these. */
export type AnswersRead = {
  groups: readonly {
    group: Pick<Group['group'], 'key' | 'source' | 'engine' | 'params' | 'point' | 'runCount'> & {
      hardware: Pick<Group['group']['hardware'], 'class'>;
    };
    /** How near the group's class is to the asker's machine, as the API ranked it (the groups come nearest first). */
    similarity?: Pick<NonNullable<Group['similarity']>, 'like' | 'distance' | 'sameStorage'> | null;
    pairs: readonly (Pick<Group['pairs'][number], 'baseline' | 'candidate' | 'advice'> & {
      measured?: { improvement: number | null; ci95: { low: number | null; high: number | null } | null } | null;
    })[];
  }[];
  atScale?: {
    groups: readonly (Pick<ScaleGroup, 'hardwareClass' | 'engine' | 'major' | 'params' | 'runs'> & {
      pairs: readonly Pick<
        ScaleGroup['pairs'][number],
        'baseline' | 'candidate' | 'status' | 'sentence' | 'ratio' | 'ci95' | 'pi95'
      >[];
    })[];
  };
};

/**
 * The group on the nearest hardware class the API calls like the asker's machine (same engine and
 * major) at the nearest scale. The API sends the groups nearest the machine first.
 */
export function lookupAnswer(answers: AnswersRead, q: AnswerQuestion): AnswerNear {
  const ranked = answers.groups.filter(
    (g) =>
      g.group.source === 'measured' &&
      g.group.engine.engine === q.engine &&
      g.group.engine.major === q.major &&
      scaleOf(g, q.param) !== null,
  );
  const engineName = `${ENGINE_NAMES[q.engine] ?? q.engine} ${q.major}`;
  if (!ranked.length) return { status: 'not-measured', sentence: `not measured on ${engineName} yet` };
  const best = ranked.find((g) => g.similarity?.like === true);
  if (!best) {
    const nearest = ranked[0]!;
    const how = nearest.similarity
      ? `, ${+nearest.similarity.distance.toFixed(2)} doublings per figure away${nearest.similarity.sameStorage ? '' : ' on other storage'}`
      : '';
    return {
      status: 'not-measured',
      sentence: `not measured near your hardware on ${engineName} (nearest: ${nearest.group.hardware.class}${how})`,
    };
  }
  const hardwareClass = best.group.hardware.class;
  const onClass = ranked.filter((g) => g.group.hardware.class === hardwareClass);
  const target = Math.max(q.value, 1);
  const asked = Object.entries(q.params ?? {}).filter(([k]) => k !== q.param);
  const differing = (g: (typeof ranked)[number]) =>
    asked
      .filter(([k, v]) => g.group.params[k] !== v)
      .map(([k, v]) => `${k} = ${fmt(Number(g.group.params[k]))}, yours ${fmt(v)}`);
  // The asked parameters first (an answer at another buffer pool is about another server), then the scale.
  const byScale = onClass.sort(
    (a, b) =>
      differing(a).length - differing(b).length ||
      Math.abs(Math.log(scaleOf(a, q.param)! / target)) - Math.abs(Math.log(scaleOf(b, q.param)! / target)) ||
      b.group.runCount - a.group.runCount,
  );
  const g = byScale[0]!;
  const differs = differing(g);
  const measuredAt = scaleOf(g, q.param)!;
  const factor = Math.max(measuredAt, 1) / target;
  const near = factor <= NEAR_SCALE && factor >= 1 / NEAR_SCALE;
  const ratio = target / Math.max(measuredAt, 1);
  const yours =
    measuredAt === q.value
      ? 'the same as yours'
      : `yours is ${fmt(q.value)} (${+(ratio >= 1 ? ratio : 1 / ratio).toPrecision(2)}× ${ratio >= 1 ? 'larger' : 'smaller'})`;
  return {
    status: 'answered',
    hardwareClass,
    measuredAt,
    near,
    runs: g.group.runCount,
    group: g.group.key,
    atScale: atScaleOf(answers, hardwareClass, q, g.group.params),
    differs,
    pairs: g.pairs.map((p) => ({
      baseline: p.baseline,
      candidate: p.candidate,
      advice: p.advice,
      improvement: p.measured?.improvement ?? null,
      ci95: p.measured?.ci95 ?? null,
    })),
    sentence: `measured at ${q.param} = ${fmt(measuredAt)} on ${hardwareClass}, ${engineName} (${g.group.runCount} run${g.group.runCount === 1 ? '' : 's'}); ${yours}${near ? '' : ': not measured near your scale'}${differs.length ? `; measured with ${differs.join('; ')}: not at your settings` : ''}`,
  };
}

/**
 * The API's answers at the table's scale for this class and major, fitted over the runs with the
 * other parameters of the group answered (`params`; the most runs when several match).
 */
function atScaleOf(
  answers: AnswersRead,
  hardwareClass: string,
  q: AnswerQuestion,
  params: Record<string, unknown>,
): AtScalePair[] {
  const sameOthers = (p: Record<string, unknown>) =>
    Object.entries(p).every(([k, v]) => k === q.param || params[k] === undefined || params[k] === v);
  const group = (answers.atScale?.groups ?? [])
    .filter(
      (g) => g.hardwareClass === hardwareClass && g.engine === q.engine && g.major === q.major && sameOthers(g.params),
    )
    .sort((a, b) => b.runs - a.runs)[0];
  return (group?.pairs ?? []).map((p) => ({
    baseline: p.baseline,
    candidate: p.candidate,
    status: p.status,
    sentence: p.sentence,
    ratio: p.ratio,
    ci95: p.ci95,
    pi95: p.pi95,
  }));
}

function scaleOf(g: AnswersRead['groups'][number], param: string): number | null {
  if (g.group.point?.param === param) return g.group.point.value;
  const v = g.group.params[param];
  return typeof v === 'number' && v > 0 ? v : null;
}
