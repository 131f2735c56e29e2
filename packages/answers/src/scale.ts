/**
 * Answers at the user's scale (pure): per hardware class × engine major × the parameters other
 * than the scale, each variant is fitted across every measured scale of the scenario's scale
 * parameter (scenario.yaml `scale`) — `fitScaleCurves`, the curves GET /v1/answers serves as
 * `scaleCurves` — and the declared pairs are answered at the asked scale from those curves by
 * `answerCurvesAtScale` (scale-curves.ts, the function the site runs in the browser too).
 */
import {
  ENGINE_FACTS,
  Engine,
  majorOfParts,
  serverForCommand,
  type ScaleAnswers,
  type ScaleCurve,
  type ScaleCurves,
  type ScenarioDocument,
  type UsedDirection,
} from '@tunelab/contracts';
import { serverArgs } from '@tunelab/contracts/run-command';
import { EQUIVALENCE_MARGIN, heldOutErrors, logLogFit, type ScalePoint } from '@tunelab/stats';
import type { SampleRow } from './groups.ts';
import { answerCurvesAtScale, MIN_SCALES, SCALE_EXTRAPOLATION_LIMIT } from './scale-curves.ts';

export { MIN_SCALES, SCALE_EXTRAPOLATION_LIMIT } from './scale-curves.ts';

export type ScaleQuery = { param: string; value: number };

/** Why a scale query cannot be answered for this scenario at all (the API's 400, naming `at`). */
export class ScaleQueryError extends Error {
  readonly field = 'at';
}

type Acc = { first: SampleRow; byVariant: Map<string, ScalePoint[]>; runs: Set<string> };

function scaleOf(r: SampleRow, param: string): number {
  if (r.point_param === param && r.point_value !== null) return r.point_value;
  return Number(r.params[param]);
}

/** Group key: everything runs are pooled by except the scale (and the sweep point when that is the scale). */
function keyOf(r: SampleRow, param: string): { key: string; params: Record<string, string | number | boolean> } {
  const params: Record<string, string | number | boolean> = {};
  for (const k of Object.keys(r.params).sort()) {
    const v = r.params[k];
    if (k === param || k === r.point_param) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') params[k] = v;
  }
  const point = r.point_param && r.point_param !== param ? `@${r.point_param}=${r.point_value}` : '';
  // One group per release line, as the answers' groups (MariaDB 10.6 and 10.11 are two).
  const key = `${r.scenario_key}@${r.version_hash.slice(0, 12)}/${r.hardware_class}/${r.engine}-${majorOfParts(Engine.parse(r.engine), r)}/${JSON.stringify(params)}[${r.unit}]${point}`;
  return { key, params };
}

/** How the command that measures another scale reaches the group's server: `--server 15`, or the engine's example `--target`. */
const serverFlags = (engine: string, major: number): string => serverArgs(serverForCommand(engine, major));

const label = (doc: ScenarioDocument, variant: string) => doc.variants.find((v) => v.key === variant)?.label ?? variant;

function curveOf(doc: ScenarioDocument, variant: string, points: ScalePoint[]): ScaleCurve {
  return {
    variant,
    label: label(doc, variant),
    line: logLogFit(points),
    n: points.length,
    scales: [...new Set(points.map((p) => p.x))].sort((a, b) => a - b),
    heldOut: heldOutErrors(points),
  };
}

export type AnswerAtScaleInput = {
  doc: ScenarioDocument;
  /** The measured samples of `metric` (results-db's rows, source measured). */
  rows: readonly SampleRow[];
  at: ScaleQuery;
  metric: string;
  direction: UsedDirection;
};

/** Throws ScaleQueryError when the scenario has no scale or `at` names another parameter. */
export function checkScaleQuery(doc: ScenarioDocument, at: ScaleQuery): void {
  if (!doc.scale)
    throw new ScaleQueryError(`${doc.key} declares no scale parameter; answers at a scale are not available for it`);
  if (doc.scale.param !== at.param)
    throw new ScaleQueryError(
      `${doc.key}'s scale parameter is ${doc.scale.param}, not ${at.param}: at=${doc.scale.param}:N`,
    );
}

export type FitScaleCurvesInput = Omit<AnswerAtScaleInput, 'at'> & { param: string };

/** Each variant fitted across the measured values of `param`, per class × major × the other parameters. */
export function fitScaleCurves(input: FitScaleCurvesInput): ScaleCurves {
  const { doc, param, metric } = input;
  const groups = new Map<string, Acc & { params: Record<string, string | number | boolean> }>();
  for (const r of input.rows) {
    if (r.source !== 'measured' || r.scenario_key !== doc.key) continue;
    const x = scaleOf(r, param);
    if (!(x > 0) || !(r.value > 0)) continue;
    const { key, params } = keyOf(r, param);
    let acc = groups.get(key);
    if (!acc) groups.set(key, (acc = { first: r, byVariant: new Map(), runs: new Set(), params }));
    acc.runs.add(r.run_id);
    const list = acc.byVariant.get(r.variant) ?? [];
    list.push({ x, y: r.value });
    acc.byVariant.set(r.variant, list);
  }
  const def = doc.metrics.find((m) => m.key === metric);
  const paramDef = doc.params[param];
  const paramRange =
    paramDef && (paramDef.type === 'integer' || paramDef.type === 'number')
      ? { min: paramDef.min ?? null, max: paramDef.max ?? null, integer: paramDef.type === 'integer' }
      : undefined;
  const fitted = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, acc]) => {
      const engine = Engine.parse(acc.first.engine);
      return {
        key,
        scenarioVersion: acc.first.version_hash,
        hardwareClass: acc.first.hardware_class,
        engine,
        major: acc.first.major,
        params: acc.params,
        runs: acc.runs.size,
        server: `${ENGINE_FACTS[engine].name} ${majorOfParts(engine, acc.first)}`,
        unit: acc.first.unit,
        serverFlags: serverFlags(engine, acc.first.major),
        // In the scenario's variant order, each variant's points by scale then value: the fit's
        // sums are then the same whatever order the rows came in (read at once, or kept and merged).
        curves: [...acc.byVariant]
          .sort(([a], [b]) => variantRank(doc, a) - variantRank(doc, b) || a.localeCompare(b))
          .map(([variant, points]) =>
            curveOf(
              doc,
              variant,
              [...points].sort((p, q) => p.x - q.x || p.y - q.y),
            ),
          ),
      };
    });
  return {
    scenario: doc.key,
    param,
    metric,
    metricLabel: def?.label ?? metric,
    unit: def?.unit ?? input.rows[0]?.unit ?? '',
    direction: input.direction,
    limit: SCALE_EXTRAPOLATION_LIMIT,
    minScales: MIN_SCALES,
    pairs: doc.comparisons.map((p) => ({ baseline: p.baseline, candidate: p.candidate })),
    margin: doc.decision?.margin ?? EQUIVALENCE_MARGIN,
    groups: fitted,
    empty: fitted.length ? null : `no measured runs of ${doc.key} with ${metric} yet`,
    ...(paramRange ? { paramRange } : {}),
  };
}

const variantRank = (doc: FitScaleCurvesInput['doc'], key: string) => {
  const i = doc.variants.findIndex((v) => v.key === key);
  return i < 0 ? Infinity : i;
};

/** The declared pairs at `at`: the curves fitted from `rows`, answered at its value. */
export function answerAtScale(input: AnswerAtScaleInput): ScaleAnswers {
  checkScaleQuery(input.doc, input.at);
  return answerCurvesAtScale(fitScaleCurves({ ...input, param: input.at.param }), input.at.value);
}
