/**
 * A deterministic pseudo-random generator (mulberry32: 32-bit state, uniform in [0, 1)), so seeded
 * test data and benchmark bodies are the same on every run. Not for statistics that need quality
 * randomness.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
