import cliProgress from 'cli-progress';
import type { RunEvent } from '../engine/run-scenario.ts';

/** ` at vus = 4` for a unit of a sweep. */
const at = (e: { point?: { param: string; value: number } }) =>
  e.point ? ` at ${e.point.param} = ${e.point.value}` : '';

/**
 * Turns engine events into a progress bar on a TTY (phase, variant, repetition, elapsed, ETA) or
 * into plain time-stamped lines on stderr otherwise (CI logs, --json, pipes). With --until-stable
 * the total grows one round at a time: the bar follows it, and the ETA also gives the bound for
 * running up to --max-repetitions.
 */
export function createProgress(opts: { tty: boolean; stream?: NodeJS.WriteStream }): {
  onEvent: (e: RunEvent) => void;
  stop: () => void;
} {
  const stream = opts.stream ?? process.stderr;
  const started = Date.now();
  const stamp = () => {
    const s = Math.round((Date.now() - started) / 1000);
    return `[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}]`;
  };
  const upTo = (e: { total: number; maxTotal?: number }) =>
    e.maxTotal !== undefined && e.maxTotal > e.total ? ` (up to ${e.maxTotal})` : '';
  if (!opts.tty) {
    return {
      onEvent(e) {
        const line =
          e.type === 'phase'
            ? `${e.phase}: ${e.message}`
            : e.type === 'warning'
              ? `warning: ${e.message}`
              : e.type === 'fixture-built'
                ? `fixture built in ${e.seconds.toFixed(2)} s`
                : e.type === 'stability'
                  ? `${e.rule === 'sequential' ? 'decide' : 'until-stable'}: ${e.message}`
                  : e.type === 'unit-start'
                    ? `${e.index}/${e.total} variant ${e.variant}${at(e)} repetition ${e.repetition}…${upTo(e)}`
                    : `${e.index}/${e.total} variant ${e.variant}${at(e)} repetition ${e.repetition}: ${e.seconds.toFixed(3)} s (${e.restoreSeconds !== undefined ? `restore ${e.restoreSeconds.toFixed(3)} s` : 'kept database'})${upTo(e)}`;
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
  const duration = (s: number) => (s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`);
  const etaText = (done: number, total: number, maxTotal?: number) => {
    if (done === 0) return '…';
    const perUnit = (Date.now() - measureStart) / done;
    const eta = duration(Math.round((perUnit * (total - done)) / 1000));
    return maxTotal !== undefined && maxTotal > total
      ? `${eta} (≤ ${duration(Math.round((perUnit * (maxTotal - done)) / 1000))} if unstable)`
      : eta;
  };
  // Why the current extra round runs; shown next to the unit until the next decision.
  let why = '';
  return {
    onEvent(e) {
      if (e.type === 'warning') {
        stream.write(`warning: ${e.message}\n`);
        return;
      }
      if (e.type === 'stability') {
        why = e.stopped ? '' : ` — ${e.message.replace(/: adding (repetition|block) .*$/, '')}`;
        if (started_) bar.update({ what: e.message });
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
        if (bar.getTotal() !== e.total) bar.setTotal(e.total);
        bar.update(e.index - 1, {
          phase: 'measure',
          what: `variant ${e.variant}${at(e)} rep ${e.repetition}${why}`,
          etaText: etaText(e.index - 1, e.total, e.maxTotal),
        });
      }
      if (e.type === 'unit-done') {
        bar.update(e.index, {
          phase: 'measure',
          what: `variant ${e.variant}${at(e)} rep ${e.repetition}: ${e.seconds.toFixed(2)} s${why}`,
          etaText: etaText(e.index, e.total, e.maxTotal),
        });
      }
    },
    stop() {
      if (started_) bar.stop();
    },
  };
}
