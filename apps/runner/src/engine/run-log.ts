import type { RunNote, TimeSeriesPoint } from '@tunelab/contracts';
import type { RunEvent } from './types.ts';

/** What a run accumulates besides samples: notes, warnings, time series; warnings are also emitted. */
export type RunLog = {
  notes: RunNote[];
  warnings: string[];
  timeSeries: TimeSeriesPoint[];
  warn(message: string): void;
  emit(event: RunEvent): void;
};

export function createRunLog(emit: (event: RunEvent) => void): RunLog {
  const log: RunLog = {
    notes: [],
    warnings: [],
    timeSeries: [],
    warn(message) {
      log.warnings.push(message);
      emit({ type: 'warning', message });
    },
    emit,
  };
  return log;
}
