/**
 * A single-core CPU score: iterations per second of a fixed, deterministic workload on this thread.
 * One iteration fills 4096 32-bit integers from a xorshift32 generator with a fixed seed, sorts them
 * (V8's typed-array sort) and folds them into an FNV-1a hash: integer arithmetic, branches and memory
 * within the L1/L2 caches, the kind of work a database's executor does. Its checksum is fixed
 * (`CPU_WORKLOAD_CHECKSUM`), so a change to the workload shows in the tests; the name carries the
 * Node major, whose JIT the score also measures.
 */
const N = 4096;
const SEED = 0x9e3779b9;

export const CPU_WORKLOAD = `tunelab-cpu-1/node-${process.versions.node.split('.')[0]}`;
export const CPU_WORKLOAD_CHECKSUM = 0x54c5a9c9;

/** One iteration of the workload; returns its checksum. */
export function cpuWorkloadIteration(values = new Int32Array(N)): number {
  let x = SEED | 0;
  for (let i = 0; i < N; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    values[i] = x;
  }
  values.sort();
  let h = 0x811c9dc5;
  for (let i = 0; i < N; i++) {
    h ^= values[i]! & 0xff;
    h = Math.imul(h, 0x01000193);
    h ^= values[i]! >>> 24;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Runs the workload for `slices` slices of `sliceMs` after one slice of warm-up (the JIT compiles
 * it) and answers the median slice's rate: on a shared machine the median is what a run gets,
 * neither the luckiest nor the unluckiest slice.
 */
export function measureCpuScore(opts: { sliceMs?: number; slices?: number } = {}): number {
  const sliceMs = opts.sliceMs ?? 100;
  const slices = opts.slices ?? 5;
  const values = new Int32Array(N);
  let sink = 0;
  const rates: number[] = [];
  for (let s = 0; s <= slices; s++) {
    const start = performance.now();
    let n = 0;
    let elapsed: number;
    do {
      sink ^= cpuWorkloadIteration(values);
      n++;
      elapsed = performance.now() - start;
    } while (elapsed < sliceMs);
    if (s > 0) rates.push((n * 1000) / elapsed);
  }
  if (sink === -1) rates.push(0); // keeps the checksums observable so no iteration is optimised away
  rates.sort((a, b) => a - b);
  const mid = rates.length >> 1;
  return rates.length % 2 ? rates[mid]! : (rates[mid - 1]! + rates[mid]!) / 2;
}
