import { createHash } from 'node:crypto';
import { capabilityOf, type Capabilities, type DatabaseSession } from '../engines/driver.ts';
import type { OsReading, OsSampler } from '../probe/os-sampler.ts';

/**
 * The insert stream (after the 2012 disk-bottleneck article and iibench): T
 * connections insert deterministic rows into `test(NO auto_increment, EMAIL, NAME)` in
 * multi-row batches — one prepared statement per connection, always the same placeholder count —
 * until `rows` or `maxSeconds`. Every `sampleEveryRows` rows it records the interval rate and
 * the server's InnoDB counters (and the OS CPU / disk of a local server) against rows inserted.
 */
export type InsertStreamOptions = {
  table: string;
  rows: number;
  maxSeconds: number;
  threads: number;
  batchRows: number;
  sampleEveryRows: number;
  /** A new session on the unit's database, one per writer. */
  openSession: () => Promise<DatabaseSession>;
  /** The session that reads counters (server-wide status, INNODB_CMP). */
  monitor: DatabaseSession;
  os?: OsSampler | null;
  signal?: AbortSignal;
  onSample?: (sample: StreamSample) => void;
};

export type StreamSample = {
  rows: number;
  seconds: number;
  /** Rows per second since the previous sample. */
  rowsPerS: number;
  dataWrittenBytes: number;
  dataReadBytes: number;
  bufferPoolReads: number;
  bufferPoolWaitFree: number;
  dirtyPages: number;
  compressOps: number;
  compressOpsOk: number;
  cpuUserPct: number | null;
  cpuSystemPct: number | null;
  cpuIowaitPct: number | null;
  diskReadBytes: number | null;
  diskWriteBytes: number | null;
};

export type InsertStreamResult = {
  rows: number;
  seconds: number;
  rowsPerS: number;
  /** Rate over the last 20 % of the rows inserted. */
  tailRowsPerS: number;
  stoppedBy: 'rows' | 'max_seconds';
  samples: StreamSample[];
  /** Totals over the whole stream (server-wide counters). */
  totals: { dataWrittenBytes: number; compressOps: number; compressOpsOk: number };
  /** This process's CPU time while inserting (generating rows, the protocol). */
  clientCpu: { userSeconds: number; systemSeconds: number };
};

const STATUS = [
  'Innodb_data_written',
  'Innodb_data_read',
  'Innodb_buffer_pool_reads',
  'Innodb_buffer_pool_wait_free',
  'Innodb_buffer_pool_pages_dirty',
] as const;

const NAMES = [
  'kim',
  'lee',
  'park',
  'choi',
  'jung',
  'kang',
  'cho',
  'yoon',
  'jang',
  'lim',
  'han',
  'oh',
  'seo',
  'shin',
  'kwon',
  'hwang',
];
const DOMAINS = ['example.com', 'mail.example.org', 'corp.example.net', 'example.co.kr'];

/** Row `i` (0-based) of the stream: the same on every run, EMAIL in random order (for an index on it). */
export function rowOf(i: number): [string, string] {
  const h = createHash('sha1').update(String(i)).digest('hex');
  const name = `${NAMES[i % NAMES.length]}${NAMES[(i >>> 4) % NAMES.length]}${i % 9973}`;
  return [`${h.slice(0, 12)}.${name}@${DOMAINS[i % DOMAINS.length]}`, name.slice(0, 32)];
}

type Counters = { status: Record<string, number>; compressOps: number; compressOpsOk: number; os: OsReading | null };

async function readCounters(monitor: DatabaseSession, os: OsSampler | null | undefined): Promise<Counters> {
  const innodb = capabilityOf(monitor, 'innodb', 'the insert stream');
  const [status, cmp, osReading] = await Promise.all([
    innodb.globalStatus([...STATUS]),
    innodb.compressionStats(),
    os ? os.read() : null,
  ]);
  return {
    status,
    compressOps: cmp.reduce((a, c) => a + c.compressOps, 0),
    compressOpsOk: cmp.reduce((a, c) => a + c.compressOpsOk, 0),
    os: osReading,
  };
}

/** Rate over the last 20 % of the rows, from the (rows, seconds) log of finished batches. */
export function tailRate(log: readonly (readonly [number, number])[], fraction = 0.2): number {
  const last = log[log.length - 1];
  if (!last) return 0;
  const from = last[0] * (1 - fraction);
  const start = [...log].reverse().find(([r]) => r <= from) ?? [0, 0];
  const dt = last[1] - start[1];
  return dt > 0 ? (last[0] - start[0]) / dt : 0;
}

/** One point of the curve: the counters' change since the previous point. */
function sampleBetween(
  os: InsertStreamOptions['os'],
  prev: Counters,
  now: Counters,
  at: Pick<StreamSample, 'rows' | 'seconds' | 'rowsPerS'>,
): StreamSample {
  const d = (k: (typeof STATUS)[number]) => (now.status[k] ?? 0) - (prev.status[k] ?? 0);
  const osd = os && prev.os && now.os ? os.delta(prev.os, now.os) : null;
  return {
    ...at,
    dataWrittenBytes: d('Innodb_data_written'),
    dataReadBytes: d('Innodb_data_read'),
    bufferPoolReads: d('Innodb_buffer_pool_reads'),
    bufferPoolWaitFree: d('Innodb_buffer_pool_wait_free'),
    dirtyPages: now.status.Innodb_buffer_pool_pages_dirty ?? 0,
    compressOps: now.compressOps - prev.compressOps,
    compressOpsOk: now.compressOpsOk - prev.compressOpsOk,
    cpuUserPct: osd?.cpuUserPct ?? null,
    cpuSystemPct: osd?.cpuSystemPct ?? null,
    cpuIowaitPct: osd?.cpuIowaitPct ?? null,
    diskReadBytes: osd?.diskReadBytes ?? null,
    diskWriteBytes: osd?.diskWriteBytes ?? null,
  };
}

/** The whole stream's totals, from the counters before it and at its last sample. */
const totalsBetween = (first: Counters, last: Counters): InsertStreamResult['totals'] => ({
  dataWrittenBytes: (last.status.Innodb_data_written ?? 0) - (first.status.Innodb_data_written ?? 0),
  compressOps: last.compressOps - first.compressOps,
  compressOpsOk: last.compressOpsOk - first.compressOpsOk,
});

export async function runInsertStream(o: InsertStreamOptions): Promise<InsertStreamResult> {
  if (!(o.threads >= 1 && o.batchRows >= 1 && o.rows >= 1 && o.sampleEveryRows >= 1 && o.maxSeconds > 0)) {
    throw new Error('insert stream: threads, batch_rows, rows, sample_every_rows and max_seconds must be positive');
  }
  const batches = Math.ceil(o.rows / o.batchRows);
  const sql = `INSERT INTO \`${o.table.replaceAll('`', '``')}\` (EMAIL, NAME) VALUES ${Array.from({ length: o.batchRows }, () => '(?, ?)').join(', ')}`;
  const sessions = await Promise.all(Array.from({ length: o.threads }, () => o.openSession()));
  const prepared = sessions.map((s) => capabilityOf(s, 'prepared', 'the insert stream'));

  const samples: StreamSample[] = [];
  const log: [number, number][] = [];
  let claimed = 0;
  let done = 0;
  let stoppedBy: InsertStreamResult['stoppedBy'] = 'rows';
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };

  const first = await readCounters(o.monitor, o.os);
  let prev = first;
  let prevRows = 0;
  let prevT = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - t0) / 1e9;

  const takeSample = async () => {
    const [rows, t] = [done, elapsed()];
    const now = await readCounters(o.monitor, o.os);
    const rowsPerS = t > prevT ? (rows - prevRows) / (t - prevT) : 0;
    const sample = sampleBetween(o.os, prev, now, { rows, seconds: t, rowsPerS });
    samples.push(sample);
    o.onSample?.(sample);
    prev = now;
    prevRows = rows;
    prevT = t;
  };

  const writer = async (statements: Capabilities['prepared']) => {
    const values = new Array<string | number | null>(o.batchRows * 2);
    while (failure === null && claimed < batches) {
      if (o.signal?.aborted) throw o.signal.reason ?? new Error('aborted');
      if (elapsed() >= o.maxSeconds) {
        stoppedBy = 'max_seconds';
        return;
      }
      const start = claimed++ * o.batchRows;
      for (let k = 0; k < o.batchRows; k++) {
        const [email, name] = rowOf(start + k);
        values[2 * k] = email;
        values[2 * k + 1] = name;
      }
      await statements.execute(sql, values);
      done += o.batchRows;
      log.push([done, elapsed()]);
      notify();
    }
  };

  const sampler = async () => {
    let next = o.sampleEveryRows;
    const finished = () => failure !== null || claimed >= batches || stoppedBy === 'max_seconds';
    for (;;) {
      while (done < next && !(finished() && running === 0)) await new Promise<void>((r) => (wake = r));
      if (done < next) return; // writers finished between two sample points
      await takeSample();
      next = (Math.floor(done / o.sampleEveryRows) + 1) * o.sampleEveryRows;
    }
  };

  let running = prepared.length;
  const writers = prepared.map((s) =>
    writer(s)
      .catch((e) => {
        failure ??= e instanceof Error ? e : new Error(String(e));
      })
      .finally(() => {
        running--;
        notify();
      }),
  );
  try {
    await Promise.all([...writers, sampler()]);
    // (set by the writers' callbacks, which narrowing does not see)
    if (failure !== null) throw failure as Error;
    const seconds = elapsed();
    // The last interval, so the curve reaches the end of the stream.
    if (samples.length === 0 || samples[samples.length - 1]!.rows < done) await takeSample();
    const cpu = process.cpuUsage(cpu0);
    return {
      rows: done,
      seconds,
      rowsPerS: seconds > 0 ? done / seconds : 0,
      tailRowsPerS: tailRate(log),
      stoppedBy,
      samples,
      totals: totalsBetween(first, prev),
      clientCpu: { userSeconds: cpu.user / 1e6, systemSeconds: cpu.system / 1e6 },
    };
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
  }
}
