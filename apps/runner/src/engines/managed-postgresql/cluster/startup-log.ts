/**
 * Reading a crash-recovery start out of the server log (log_line_prefix = '%m [%p] ', UTC).
 *
 * - sync: "database system was interrupted…" is logged just before StartupXLOG() calls
 *   SyncDataDirectory(), "database system was not properly shut down…" right after it (from
 *   InitWalRecovery, PostgreSQL 15's xlog.c / xlogrecovery.c); '%m' gives millisecond resolution.
 * - redo: "redo starts at" → "redo done at" (or "redo is not required": 0).
 * - progress: with log_startup_progress_interval (15+), "syncing data directory (fsync), elapsed
 *   time: …" and "redo in progress, elapsed time: …" lines.
 */
export type LogLine = { atMs: number | null; pid: number | null; level: string; message: string };

const PREFIX =
  /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?) ?([A-Za-z+\-0-9:]*) \[(\d+)\] ([A-Z0-9]+):\s+(.*)$/;

/** Splits a log into lines with their timestamps; continuation lines join the line before. */
export function parseLogLines(text: string): LogLine[] {
  const out: LogLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    const m = PREFIX.exec(raw);
    if (m) {
      // The managed cluster logs in UTC; the zone only matters for differences, which it cancels.
      const atMs = Date.parse(`${m[1]}T${m[2]}Z`);
      out.push({ atMs: Number.isNaN(atMs) ? null : atMs, pid: Number(m[4]), level: m[5] ?? '', message: m[6] ?? '' });
    } else {
      const last = out[out.length - 1];
      if (last && /^\s/.test(raw)) last.message += `\n${raw.trim()}`;
      else out.push({ atMs: null, pid: null, level: '', message: raw });
    }
  }
  return out;
}

export type StartupAnalysis = {
  /** The start ran crash recovery (the log says the system was interrupted). */
  recovered: boolean;
  /** Data-directory sync before recovery, ms; null when the start did not crash-recover. */
  syncMs: number | null;
  /** The sync method the progress lines name, if any ("fsync", "syncfs"; "pre-fsync" is folded into fsync). */
  syncMethodSeen: string | null;
  /** Redo, ms: 0 when "redo is not required", null when not found. */
  redoMs: number | null;
  /** "redo done … elapsed: X s" from the server itself (PostgreSQL 14+), seconds. */
  redoElapsedS: number | null;
  /** First line of the start → "database system is ready to accept connections", ms. */
  startupMs: number | null;
  /** Startup progress lines, verbatim messages. */
  progress: string[];
  /** FATAL/PANIC lines other than the "starting up" refusals of readiness polling. */
  errors: string[];
};

const find = (lines: LogLine[], re: RegExp, from = 0) => {
  for (let i = from; i < lines.length; i++) if (re.test(lines[i]!.message)) return i;
  return -1;
};
const diff = (lines: LogLine[], a: number, b: number): number | null => {
  const x = lines[a]?.atMs;
  const y = lines[b]?.atMs;
  return a >= 0 && b >= 0 && x != null && y != null ? y - x : null;
};

/** Analyses the log lines of one start (pass the text from that start's log offset). */
export function analyzeStartup(text: string): StartupAnalysis {
  const lines = parseLogLines(text);
  const interrupted = find(lines, /^database system (was interrupted|shutdown was interrupted)/);
  const notProperly = find(lines, /^database system was not properly shut down/, Math.max(0, interrupted));
  const redoStart = find(lines, /^redo starts at/);
  const redoDone = find(lines, /^redo done at/, Math.max(0, redoStart));
  const redoNotRequired = find(lines, /^redo is not required/);
  const ready = find(lines, /^database system is ready to accept/);
  const elapsed = redoDone >= 0 ? /elapsed: ([\d.]+) s/.exec(lines[redoDone]!.message) : null;
  const progress = lines.filter((l) => /elapsed time: [\d.]+ s/.test(l.message)).map((l) => l.message);
  const methods = progress
    .map((p) => /^syncing data directory \(([a-z-]+)\)/.exec(p)?.[1])
    .filter((m): m is string => m !== undefined);
  const first = lines.findIndex((l) => l.atMs !== null);
  return {
    recovered: interrupted >= 0,
    syncMs: diff(lines, interrupted, notProperly),
    syncMethodSeen: methods.length
      ? methods[methods.length - 1] === 'pre-fsync'
        ? 'fsync'
        : methods[methods.length - 1]!
      : null,
    redoMs: redoStart >= 0 && redoDone >= 0 ? diff(lines, redoStart, redoDone) : redoNotRequired >= 0 ? 0 : null,
    redoElapsedS: elapsed ? Number(elapsed[1]) : null,
    startupMs: diff(lines, first, ready),
    progress,
    errors: lines
      .filter(
        (l) =>
          (l.level === 'FATAL' || l.level === 'PANIC') &&
          !/the database system is (starting up|shutting down|not yet accepting connections)/.test(l.message),
      )
      .map((l) => `${l.level}: ${l.message}`),
  };
}
