/**
 * Multiple-comparison adjustment of p-values. `holm`: Holm's step-down method (Holm 1979,
 * "A simple sequentially rejective multiple test procedure"), which controls the family-wise
 * error rate under any dependence between the tests — the pairs of one answer share their
 * baseline's runs, so their tests are dependent. `benjamini-hochberg`: the false discovery rate
 * step-up method (Benjamini & Hochberg 1995), as scipy.stats.false_discovery_control(method='bh').
 * Both match R's p.adjust and statsmodels' multipletests; `scripts/reference.py` checks them.
 */
export type AdjustMethod = 'holm' | 'benjamini-hochberg';

/** The adjusted p-values, in the order given; each ≥ its raw p and ≤ 1. */
export function adjustPValues(ps: readonly number[], method: AdjustMethod = 'holm'): number[] {
  const list: unknown = ps;
  if (!Array.isArray(list)) throw new RangeError('ps must be an array of p-values');
  ps.forEach((p, i) => {
    if (typeof p !== 'number' || !(p >= 0 && p <= 1))
      throw new RangeError(`ps[${i}] must be in [0, 1] (got ${String(p)})`);
  });
  if (method !== 'holm' && method !== 'benjamini-hochberg')
    throw new RangeError(`method must be 'holm' or 'benjamini-hochberg' (got ${String(method)})`);
  const m = ps.length;
  const order = ps.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p || x.i - y.i);
  const out = new Array<number>(m).fill(1);
  if (method === 'holm') {
    // p(k) · (m − k + 1), made monotone from the smallest up.
    let running = 0;
    order.forEach(({ p, i }, k) => {
      running = Math.max(running, Math.min(1, (m - k) * p));
      out[i] = running;
    });
  } else {
    // p(k) · m / k, made monotone from the largest down.
    let running = 1;
    for (let k = m - 1; k >= 0; k -= 1) {
      const { p, i } = order[k]!;
      running = Math.min(running, (p * m) / (k + 1));
      out[i] = Math.min(1, running);
    }
  }
  return out;
}
