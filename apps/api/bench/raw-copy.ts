import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { inTransaction } from './plain-insert.ts';
import type { Workload } from './workload.ts';

/**
 * The second baseline: the same sample and time-series rows as plain-insert.ts, loaded with
 * PostgreSQL's binary COPY (`COPY … FROM STDIN (FORMAT binary)` through pg-copy-streams) into
 * tables shaped like those (same columns, keys and indexes; no foreign keys, triggers or parent
 * rows), one transaction of two COPYs per submission. This is what the server can take in when
 * neither SQL text nor an executor plan stands between the rows and the tables.
 */
export const COPY_SCHEMA = `
CREATE TABLE copy_samples (LIKE plain_samples INCLUDING DEFAULTS INCLUDING INDEXES);
CREATE TABLE copy_time_series_points (LIKE plain_time_series_points INCLUDING DEFAULTS INCLUDING INDEXES);
`;

const SAMPLES_COPY =
  'COPY copy_samples (run_id, scenario_version_id, hardware_profile_id, variant, repetition, metric, unit, value) FROM STDIN (FORMAT binary)';
const POINTS_COPY =
  'COPY copy_time_series_points (run_id, variant, repetition, metric, x, value) FROM STDIN (FORMAT binary)';

type Field = { uuid: Buffer } | string | { int4: number } | number;

/**
 * PostgreSQL's binary COPY file (https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4):
 * the 11-byte signature, flags and header-extension length (both 0); per row the field count and
 * each field as its byte length and its bytes (uuid 16 bytes, int4, float8, text UTF-8),
 * big-endian; then -1 as the trailer.
 */
export function binaryCopy(rows: Field[][]): Buffer {
  const chunks: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)];
  for (const row of rows) {
    const head = Buffer.allocUnsafe(2);
    head.writeInt16BE(row.length);
    chunks.push(head);
    for (const f of row) {
      let bytes: Buffer;
      if (typeof f === 'string') bytes = Buffer.from(f, 'utf8');
      else if (typeof f === 'number') {
        bytes = Buffer.allocUnsafe(8);
        bytes.writeDoubleBE(f);
      } else if ('uuid' in f) bytes = f.uuid;
      else {
        bytes = Buffer.allocUnsafe(4);
        bytes.writeInt32BE(f.int4);
      }
      const len = Buffer.allocUnsafe(4);
      len.writeInt32BE(bytes.length);
      chunks.push(len, bytes);
    }
  }
  const trailer = Buffer.allocUnsafe(2);
  trailer.writeInt16BE(-1);
  chunks.push(trailer);
  return Buffer.concat(chunks);
}

const uuidBytes = (id: string) => ({ uuid: Buffer.from(id.replaceAll('-', ''), 'hex') });
const SCENARIO_VERSION_IDS = Array.from({ length: 8 }, () => uuidBytes(randomUUID()));
const HARDWARE_IDS = Array.from({ length: 8 }, () => uuidBytes(randomUUID()));

/** One submission's rows as one transaction of two binary COPYs on one pooled connection. */
export async function rawCopy(pool: pg.Pool, w: Workload): Promise<number> {
  const run = uuidBytes(randomUUID());
  const sv = SCENARIO_VERSION_IDS[w.scenario]!;
  const hw = HARDWARE_IDS[w.machine]!;
  // Encoded in the timed path, as the plain INSERT's parameters are.
  const samples = binaryCopy(
    w.submission.samples.map((s) => [run, sv, hw, s.variant, { int4: s.repetition }, s.metric, s.unit, s.value]),
  );
  const series = w.submission.timeSeries ?? [];
  const points = binaryCopy(series.map((p) => [run, p.variant, { int4: p.repetition }, p.metric, p.x, p.value]));
  await inTransaction(pool, async (client) => {
    await pipeline(Readable.from([samples]), client.query(copyFrom(SAMPLES_COPY)));
    if (series.length > 0) await pipeline(Readable.from([points]), client.query(copyFrom(POINTS_COPY)));
  });
  return w.submission.samples.length + series.length;
}
