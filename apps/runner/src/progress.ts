import cliProgress from 'cli-progress';
import type { RunEvent } from './engine/run-scenario.ts';

/**
 * Turns engine events into a progress bar on a TTY (phase, variant, repetition, elapsed, ETA) or
 * into plain time-stamped lines on stderr otherwise (CI logs, --json, pipes).
 */
export function createProgress(opts: { tty: boolean; stream?: NodeJS.WriteStream }): { onEvent: (e: RunEvent) => void; stop: () => void } {
  const stream = opts.stream ?? process.stderr;
  const started = Date.now();
  const stamp = () => {
    const s = Math.round((Date.now() - started) / 1000);
    return `[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}]`;
  };
  if (!opts.tty) {
    return {
      onEvent(e) {
        const line =
          e.type === 'phase' ? `${e.phase}: ${e.message}`
          : e.type === 'warning' ? `warning: ${e.message}`
          : e.type === 'fixture-built' ? `fixture built in ${e.seconds.toFixed(2)} s`
          : e.type === 'unit-start' ? `${e.index}/${e.total} variant ${e.variant} repetition ${e.repetition}…`
          : `${e.index}/${e.total} variant ${e.variant} repetition ${e.repetition}: ${e.seconds.toFixed(3)} s (restore ${e.restoreSeconds.toFixed(3)} s)`;
        stream.write(`${stamp()} ${line}\n`);
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{phase} |{bar}| {value}/{total} {what} | elapsed {duration_formatted} | ETA {etaText}',
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 4,
    },
    cliProgress.Presets.shades_classic,
  );
  let started_ = false;
  let measureStart = 0;
  // cli-progress prints "NF" until the first unit finishes; estimate from whole units instead.
  const etaText = (done: number, total: number) => {
    if (done === 0) return '…';
    const s = Math.round((((Date.now() - measureStart) / done) * (total - done)) / 1000);
    return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
  };
  return {
    onEvent(e) {
      if (e.type === 'warning') {
        stream.write(`warning: ${e.message}\n`);
        return;
      }
      if (e.type === 'phase' && e.phase !== 'measure') {
        if (started_) bar.update({ phase: e.phase, what: e.message, etaText: '0s' });
        else stream.write(`${stamp()} ${e.phase}: ${e.message}\n`);
        return;
      }
      if (e.type === 'fixture-built') {
        stream.write(`${stamp()} fixture built in ${e.seconds.toFixed(2)} s\n`);
        return;
      }
      if (e.type === 'unit-start') {
        if (!started_) {
          measureStart = Date.now();
          bar.start(e.total, 0, { phase: 'measure', what: '', etaText: '…' });
          started_ = true;
        }
        bar.update(e.index - 1, { phase: 'measure', what: `variant ${e.variant} rep ${e.repetition}`, etaText: etaText(e.index - 1, e.total) });
      }
      if (e.type === 'unit-done') {
        bar.update(e.index, { phase: 'measure', what: `variant ${e.variant} rep ${e.repetition}: ${e.seconds.toFixed(2)} s`, etaText: etaText(e.index, e.total) });
      }
    },
    stop() {
      if (started_) bar.stop();
    },
  };
}
