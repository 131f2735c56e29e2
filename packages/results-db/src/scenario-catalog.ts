/**
 * The scenario folders comparisons and answers read directions, relevant settings and the
 * article's figures from (`scenarios/` of the checkout unless told otherwise). Loaded once per
 * process and cached: a folder that changes is a new scenario version, served after a restart.
 */
import type { ScenarioDocument } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, listScenarioDirs, loadScenario, type LoadedScenario } from '@tunelab/scenarios';

export type ScenarioCatalog = {
  get(key: string): Promise<LoadedScenario | null>;
  /** Every scenario's document, by key (for comparisons across scenarios). */
  docs(): Promise<Map<string, ScenarioDocument>>;
};

export function scenarioCatalog(dir: string = DEFAULT_SCENARIOS_DIR): ScenarioCatalog {
  let all: Promise<Map<string, LoadedScenario>> | null = null;
  const load = () =>
    (all ??= (async () => {
      const out = new Map<string, LoadedScenario>();
      for (const d of await listScenarioDirs(dir)) {
        // A folder that does not load (invalid yaml) is left out: its runs get the default direction.
        const s = await loadScenario(d).catch(() => null);
        if (s) out.set(s.key, s);
      }
      return out;
    })());
  return {
    get: async (key) => (await load()).get(key) ?? null,
    docs: async () => new Map([...(await load()).entries()].map(([k, s]) => [k, s.doc])),
  };
}
