/**
 * `tunelab run KEY --scale-sweep`: the runs that measure a scenario at every point of its scale
 * (scenario.yaml `scale`), so answers can be given at any scale (GET /v1/answers?at=…). When the
 * scale parameter is the swept one (recovery-init-sync's tables) one run sweeps every point;
 * otherwise one run per point, each building its own fixture (its own template), one after another.
 */
import type { ScenarioDocument } from '@tunelab/contracts';
import { UsageError } from '../errors.ts';

/** Each run's parameter overrides (`--param name=value` as typed), in the order they run. */
export function scaleSweepRuns(
  doc: ScenarioDocument,
  params: Readonly<Record<string, string>>,
): Record<string, string>[] {
  const scale = doc.scale;
  if (!scale)
    throw new UsageError(
      `--scale-sweep: ${doc.key} declares no scale parameter (scenario.yaml "scale"); run it at one scale with --param`,
    );
  if (Object.hasOwn(params, scale.param))
    throw new UsageError(
      `--scale-sweep measures ${scale.param} at its declared points; drop --param ${scale.param}=${params[scale.param]}, or drop --scale-sweep to run one value`,
    );
  if (doc.sweep?.param === scale.param) {
    const points = scale.points ?? doc.sweep.default;
    return [{ ...params, [scale.param]: points.join(',') }];
  }
  // The contract requires points for a scale parameter that is not swept.
  return (scale.points ?? []).map((point) => ({ ...params, [scale.param]: String(point) }));
}
