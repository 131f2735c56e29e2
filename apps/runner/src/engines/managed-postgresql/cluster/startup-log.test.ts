import { describe, expect, it } from 'vitest';
import { analyzeStartup, parseLogLines } from './startup-log.ts';

// Lines as PostgreSQL 15 writes them with log_line_prefix = '%m [%p] ' (from a managed cluster's
// log after `pg_ctl stop -m immediate` and a start with recovery_init_sync_method = fsync).
const FSYNC_START = `2026-11-22 06:43:41.512 UTC [24101] LOG:  starting PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu
2026-11-22 06:43:41.520 UTC [24104] LOG:  database system was interrupted; last known up at 2026-11-22 06:43:40 UTC
2026-11-22 06:43:41.522 UTC [24105] FATAL:  the database system is starting up
2026-11-22 06:43:42.520 UTC [24104] LOG:  syncing data directory (pre-fsync), elapsed time: 1.00 s, current path: ./base/5/58954
2026-11-22 06:43:43.520 UTC [24104] LOG:  syncing data directory (fsync), elapsed time: 2.00 s, current path: ./base/5/39502
2026-11-22 06:43:44.011 UTC [24104] LOG:  database system was not properly shut down; automatic recovery in progress
2026-11-22 06:43:44.015 UTC [24104] LOG:  redo starts at 0/961B088
2026-11-22 06:43:44.016 UTC [24106] FATAL:  the database system is not yet accepting connections
2026-11-22 06:43:44.016 UTC [24106] DETAIL:  Consistent recovery state has not been yet reached.
2026-11-22 06:43:44.252 UTC [24104] LOG:  redo done at 0/961B110 system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.23 s
2026-11-22 06:43:44.300 UTC [24101] LOG:  database system is ready to accept connections
`;

describe('startup log analysis', () => {
  it('reads sync and redo durations at millisecond resolution, the progress lines, and no errors from readiness polling', () => {
    const a = analyzeStartup(FSYNC_START);
    expect(a).toMatchObject({
      recovered: true,
      syncMs: 2491,
      redoMs: 237,
      redoElapsedS: 0.23,
      startupMs: 2788,
      syncMethodSeen: 'fsync',
      errors: [],
    });
    expect(a.progress).toHaveLength(2);
    expect(a.progress[0]).toMatch(/^syncing data directory \(pre-fsync\), elapsed time: 1\.00 s/);
  });

  it('a clean start has no sync; "redo is not required" is zero redo; a real FATAL is reported', () => {
    const clean = analyzeStartup(
      '2026-11-22 06:50:00.000 UTC [1] LOG:  database system was shut down at 2026-11-22 06:49:59 UTC\n2026-11-22 06:50:00.004 UTC [1] LOG:  database system is ready to accept connections\n',
    );
    expect(clean).toMatchObject({ recovered: false, syncMs: null, redoMs: null, startupMs: 4 });
    const noRedo = analyzeStartup(
      FSYNC_START.replace(/.*redo starts.*\n/, '').replace(
        /.*redo done.*\n/,
        '2026-11-22 06:43:44.020 UTC [24104] LOG:  redo is not required\n',
      ),
    );
    expect(noRedo.redoMs).toBe(0);
    const failed = analyzeStartup(
      '2026-11-22 06:50:00.000 UTC [9] FATAL:  lock file "/tmp/x/.s.PGSQL.5432.lock" already exists\n2026-11-22 06:50:00.000 UTC [9] HINT:  Is another postmaster (PID 8) using socket file "/tmp/x/.s.PGSQL.5432"?\n',
    );
    expect(failed.errors).toEqual(['FATAL: lock file "/tmp/x/.s.PGSQL.5432.lock" already exists']);
  });

  it('continuation lines join the line before; timestamps without fractions parse', () => {
    const lines = parseLogLines('2026-11-22 06:50:00 UTC [7] ERROR:  syntax error\n\tat character 5\n');
    expect(lines).toEqual([
      { atMs: Date.UTC(2026, 10, 22, 6, 50, 0), pid: 7, level: 'ERROR', message: 'syntax error\nat character 5' },
    ]);
  });
});
