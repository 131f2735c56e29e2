import { InsertStreamStep, substituteParams } from '@tunelab/contracts';
import { UsageError } from '../../errors.ts';
import { probeStorageOf } from '../../probe/hardware.ts';
import { pidFromFile, throttleWrites, ThrottleUnavailable, type WriteThrottle } from '../../probe/io-throttle.ts';
import { createOsSampler, type OsSampler } from '../../probe/os-sampler.ts';
import { runInsertStream, type StreamSample } from '../../workload/insert-stream.ts';
import type { ActionContext, StepAction } from './types.ts';

/** Time-series metrics of every sample (x = rows inserted so far). */
const SERIES: [string, (s: StreamSample) => number | null][] = [
  ['rows_per_s', (s) => s.rowsPerS],
  ['data_written_bytes', (s) => s.dataWrittenBytes],
  ['data_read_bytes', (s) => s.dataReadBytes],
  ['buffer_pool_reads', (s) => s.bufferPoolReads],
  ['buffer_pool_wait_free', (s) => s.bufferPoolWaitFree],
  ['dirty_pages', (s) => s.dirtyPages],
  ['compress_ops', (s) => s.compressOps],
  ['compress_ops_ok', (s) => s.compressOpsOk],
  ['cpu_user_pct', (s) => s.cpuUserPct],
  ['cpu_system_pct', (s) => s.cpuSystemPct],
  ['cpu_iowait_pct', (s) => s.cpuIowaitPct],
  ['disk_read_bytes', (s) => s.diskReadBytes],
  ['disk_write_bytes', (s) => s.diskWriteBytes],
];

function resolveCount(value: number | string, field: string, ctx: ActionContext, min: number): number {
  const n = typeof value === 'number' ? value : Number(substituteParams(value, ctx.params));
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`insert_stream: ${field} must be a whole number ≥ ${min}, got ${String(value)}`);
  return n;
}
function resolveFlag(value: boolean | string, ctx: ActionContext): boolean {
  if (typeof value === 'boolean') return value;
  const v = substituteParams(value, ctx.params);
  return v === 'true' || v === '1' || v === 'on';
}

/** The server's data directory and pid file, when the target runs on this machine. */
async function localServer(ctx: ActionContext): Promise<{ device: string | null; pidFile: string } | null> {
  if (!ctx.target.driver.isLocal(ctx.target.url)) return null;
  const [row] = await ctx.session.exec('SELECT @@datadir AS d, @@pid_file AS p');
  const dataDir = typeof row?.d === 'string' ? row.d : '';
  const device = dataDir ? ((await probeStorageOf(dataDir).catch(() => null))?.device ?? null) : null;
  return { device, pidFile: typeof row?.p === 'string' ? row.p : '' };
}

/** `action: insert_stream` — see contracts/steps/insert-stream.ts. */
export const insertStreamAction: StepAction<'insert_stream'> = {
  action: 'insert_stream',
  schema: InsertStreamStep,
  async execute(step, ctx) {
    const rows = resolveCount(step.rows, 'rows', ctx, 1);
    const threads = resolveCount(step.threads, 'threads', ctx, 1);
    const batchRows = resolveCount(step.batch_rows, 'batch_rows', ctx, 1);
    const sampleEveryRows = resolveCount(step.sample_every_rows, 'sample_every_rows', ctx, 1);
    const maxSeconds = resolveCount(step.max_seconds, 'max_seconds', ctx, 1);
    const writeMbps = resolveCount(step.write_mbps, 'write_mbps', ctx, 0);
    if (!ctx.session.capabilities.innodb) throw new UsageError('insert_stream runs on MySQL/MariaDB targets only');
    const innodb = ctx.session.capabilities.innodb;
    const table = step.table;
    if (resolveFlag(step.email_index, ctx))
      await ctx.session.exec(`ALTER TABLE \`${table}\` ADD INDEX email_idx (EMAIL)`);

    const local = await localServer(ctx);
    const os: OsSampler | null = local ? createOsSampler(local.device) : null;
    let throttle: WriteThrottle | null = null;
    if (writeMbps > 0) {
      try {
        if (!local) throw new ThrottleUnavailable('the server is not on this machine');
        if (!local.device) throw new ThrottleUnavailable("the server's data directory device is unknown");
        throttle = await throttleWrites({
          pid: await pidFromFile(local.pidFile),
          device: local.device,
          bytesPerSecond: writeMbps * 1024 * 1024,
        });
        ctx.note('write-throttle', throttle.description);
      } catch (e) {
        if (!(e instanceof ThrottleUnavailable)) throw e;
        const text = `write_mbps=${writeMbps} was asked for but cgroups cannot throttle the server here (${e.message}); the stream ran unthrottled`;
        ctx.warn(text);
        ctx.note('write-throttle', text);
      }
    }
    try {
      const r = await runInsertStream({
        table,
        rows,
        maxSeconds,
        threads,
        batchRows,
        sampleEveryRows,
        openSession: () => ctx.connect(),
        monitor: ctx.session,
        os,
        signal: ctx.signal,
        onSample: (s) => {
          for (const [metric, get] of SERIES) {
            const v = get(s);
            if (v !== null && Number.isFinite(v)) ctx.series(metric, s.rows, v);
          }
        },
      });
      const ts = await innodb.tablespaceSizes(table);
      // The pages the table's B-trees hold (DATA_LENGTH + INDEX_LENGTH, fresh after ANALYZE): what
      // must fit in the buffer pool. The tablespace files above also count extents InnoDB allocated
      // ahead (about 27 MiB for 20,000 rows of about 3 MB), so they cannot tell a small table from a big one.
      await ctx.session.exec(`ANALYZE TABLE \`${table}\``);
      const data = await ctx.session.relationSizes(table);
      const failPct =
        r.totals.compressOps > 0 ? ((r.totals.compressOps - r.totals.compressOpsOk) / r.totals.compressOps) * 100 : 0;
      ctx.record('rows_per_s', r.rowsPerS);
      ctx.record('rows_per_s_tail', r.tailRowsPerS);
      ctx.record('rows_inserted', r.rows);
      ctx.record('stream_seconds', r.seconds);
      ctx.record('tablespace_size', ts.allocatedSize);
      ctx.record('tablespace_file_size', ts.fileSize);
      ctx.record('table_data_size', data.total);
      ctx.record('bytes_written_per_row', r.rows > 0 ? r.totals.dataWrittenBytes / r.rows : 0);
      ctx.record('compress_fail_pct', failPct);
      ctx.record('client_cpu_s', r.clientCpu.userSeconds + r.clientCpu.systemSeconds);
      const cpu = r.samples.filter((s) => s.cpuUserPct !== null);
      const mean = (f: (s: StreamSample) => number | null) =>
        cpu.length ? cpu.reduce((a, s) => a + (f(s) ?? 0), 0) / cpu.length : null;
      const osText = cpu.length
        ? `; machine CPU user ${mean((s) => s.cpuUserPct)!.toFixed(0)} %, system ${mean((s) => s.cpuSystemPct)!.toFixed(0)} %, iowait ${mean((s) => s.cpuIowaitPct)!.toFixed(0)} % (mean of samples)`
        : '';
      ctx.note(
        'insert-stream',
        `${r.rows} rows by ${threads} connections in batches of ${batchRows} in ${r.seconds.toFixed(1)} s (stopped by ${r.stoppedBy}): ` +
          `${r.rowsPerS.toFixed(0)} rows/s, last 20 % ${r.tailRowsPerS.toFixed(0)} rows/s; tablespace ${ts.fileSize} B (${ts.allocatedSize} B allocated, ${ts.files.length} files); ` +
          `Innodb_data_written ${r.totals.dataWrittenBytes} B; compress ops ${r.totals.compressOps} (${r.totals.compressOpsOk} ok); client CPU ${r.clientCpu.userSeconds.toFixed(1)} s user + ${r.clientCpu.systemSeconds.toFixed(1)} s system${osText}`,
      );
      if (r.stoppedBy === 'max_seconds')
        ctx.warn(
          `${ctx.variant ?? 'insert stream'} #${ctx.repetition ?? 1}: stopped at max_seconds=${maxSeconds} after ${r.rows} of ${rows} rows`,
        );
    } finally {
      if (throttle) await throttle.remove();
    }
  },
};
