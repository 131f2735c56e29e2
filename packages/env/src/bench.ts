/**
 * What every benchmark prints while it runs (`@tunelab/env/bench`): a progress line on stderr at
 * least every 10 s, so that a user can follow a long run and see it is not stuck.
 */
import { Worker } from 'node:worker_threads';

/** A phase's progress: `done` of `total` `unit`, and optionally a note after a semicolon. */
export type ProgressCount = { done: number; total: number; unit: string; extra?: string };

const whole = (x: number) => Math.round(x).toLocaleString('en-US');

/** `[mm:ss] phase: note`. A plain function: the worker of `progressNotes` runs its source too. */
function noteLine(phase: string, seconds: number, note: string): string {
  return `[${minutesSeconds(seconds)}] ${phase}: ${note}`;
}
function minutesSeconds(seconds: number): string {
  return `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;
}

/**
 * One progress line, `[01:05] claim: 4,210 of 10,000 jobs, 320/s, about 18 s left; note`, for a
 * phase `seconds` old. The rate and the time left are from the phase's start; a count without a
 * total (0) leaves out the time left. A string is a phase without a count: `[00:15] build: note`.
 */
export function progressLine(phase: string, seconds: number, count: ProgressCount | string): string {
  if (typeof count === 'string') return noteLine(phase, seconds, count);
  const stamp = minutesSeconds(seconds);
  const { done, total, unit, extra } = count;
  const rate = done / Math.max(seconds, 1e-3);
  const left = rate > 0 && total > done ? `, about ${Math.ceil((total - done) / rate)} s left` : '';
  const of = total > 0 ? ` of ${whole(total)}` : '';
  // A slow phase (CLI runs, experiments) keeps a decimal, so that its rate does not read as 0.
  const perSecond = rate < 10 ? rate.toFixed(1) : whole(rate);
  return `[${stamp}] ${phase}: ${whole(done)}${of} ${unit}, ${perSecond}/s${left}${extra ? `; ${extra}` : ''}`;
}

/**
 * A progress line on stderr every `everyMs` (default 5 s) while a phase runs; `count` is read at
 * each tick (without one the line says the phase is still running). `stop()` ends the lines.
 */
export function progressLines(
  phase: string,
  count: () => ProgressCount | string = () => 'still running',
  everyMs = 5000,
): { stop: () => void } {
  const started = performance.now();
  const timer = setInterval(() => {
    process.stderr.write(`${progressLine(phase, (performance.now() - started) / 1000, count())}\n`);
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * `progressLines` for a benchmark whose own thread blocks for seconds at a time (the embedded
 * PGlite database, an in-process build): a worker thread prints `[mm:ss] phase: note` every
 * `everyMs` straight to file descriptor 2, whatever this thread is doing; `set(note)` changes the
 * note (it reaches the worker at once, as a message), `stop()` ends the worker.
 */
export function progressNotes(
  phase: string,
  note = 'starting',
  everyMs = 5000,
): { set: (note: string) => void; stop: () => void } {
  // process.getBuiltinModule: the worker's code may run as CommonJS or as a module (it inherits
  // --input-type), and only this works in both.
  const source = `
    const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
    const { writeSync } = process.getBuiltinModule('node:fs');
    ${minutesSeconds.toString()}
    ${noteLine.toString()}
    let note = workerData.note;
    const started = Date.now();
    parentPort.on('message', (m) => (note = m));
    setInterval(() => writeSync(2, noteLine(workerData.phase, (Date.now() - started) / 1000, note) + '\\n'), workerData.everyMs);`;
  const worker = new Worker(source, { eval: true, workerData: { phase, note, everyMs } });
  worker.unref();
  return { set: (n) => worker.postMessage(n), stop: () => void worker.terminate() };
}
