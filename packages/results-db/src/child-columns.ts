/**
 * A run's samples and time-series points as one PostgreSQL array per column, the ingest
 * statement's `unnest` parameters (ingest.ts), in one of two encodings:
 *
 * - binary (pg): PostgreSQL's binary array format (what `array_recv` reads, see
 *   https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-FORMAT-CODES and
 *   src/backend/utils/adt/arrayfuncs.c): doubles and integers are copied as bytes, so neither
 *   side turns ~600 numbers per submission into text and back (that conversion was the API's
 *   largest cost after validation, apps/api/bench/README.md). pg sends a Buffer parameter in the
 *   binary format;
 * - text (PGlite, which would take a Buffer for bytea): array literals, numbers as JavaScript prints
 *   them (the shortest text that reads back as the same double).
 *
 * Either way the stored values are the same: -0 is stored as 0, as its text "0" always was.
 */
import type { RunSubmission } from '@tunelab/contracts';

type Column = { oid: number; values: (string | number | null)[] };

/** Element type OIDs (pg_type.oid) of the statement's `text[]`, `int4[]` and `float8[]` parameters. */
const TEXT = 25;
const INT4 = 23;
const FLOAT8 = 701;

type SampleRow = RunSubmission['samples'][number];
type PointRow = RunSubmission['timeSeries'][number];
/** One column: its element type and how a row gives its value. */
type Field<T> = readonly [oid: number, value: (row: T) => string | number | null];

/** The columns every sample and time-series point starts with. */
const UNIT_FIELDS: readonly Field<SampleRow | PointRow>[] = [
  [TEXT, (x) => x.variant],
  [INT4, (x) => x.repetition],
  [TEXT, (x) => x.metric],
];
/** … and ends with: its sweep point. */
const POINT_FIELDS: readonly Field<SampleRow | PointRow>[] = [
  [TEXT, (x) => (x.point ? x.point.param : null)],
  [FLOAT8, (x) => (x.point ? x.point.value : null)],
];

/** The samples' columns: variant, repetition, metric, unit, value, point_param, point_value. */
const SAMPLE_FIELDS: readonly Field<SampleRow>[] = [
  ...UNIT_FIELDS,
  [TEXT, (x) => x.unit],
  [FLOAT8, (x) => x.value],
  ...POINT_FIELDS,
];
/** The time-series points' columns: variant, repetition, metric, x, value, point_param, point_value. */
const SERIES_FIELDS: readonly Field<PointRow>[] = [
  ...UNIT_FIELDS,
  [FLOAT8, (x) => x.x],
  [FLOAT8, (x) => x.value],
  ...POINT_FIELDS,
];
/** The samples' positions in their blocks (null for a run from before blocks). */
const POSITION_FIELDS: readonly Field<SampleRow>[] = [[INT4, (x) => x.position ?? null]];

function columnsFrom<T>(rows: readonly T[], fields: readonly Field<T>[]): Column[] {
  return fields.map(([oid, value]) => {
    const values = new Array<string | number | null>(rows.length);
    for (let i = 0; i < rows.length; i++) values[i] = value(rows[i]!);
    return { oid, values };
  });
}

/** Samples, then points, then the samples' positions: the order of the statement's parameters. */
function columnsOf(s: RunSubmission): Column[] {
  return [
    ...columnsFrom(s.samples, SAMPLE_FIELDS),
    ...columnsFrom(s.timeSeries, SERIES_FIELDS),
    ...columnsFrom(s.samples, POSITION_FIELDS),
  ];
}

/** The 15 array parameters of the ingest statement, binary (Buffers, for pg) or as text literals. */
export function childColumns(s: RunSubmission, binary: boolean): (Buffer | string)[] {
  const columns = columnsOf(s);
  if (!binary) {
    const names = new Map<string, string>();
    return columns.map((c) => textArray(c, names));
  }
  const names = new Map<string, Buffer>();
  return columns.map((c) => binaryArray(c, names));
}

/**
 * One dimension, lower bound 1: ndim, has-null flag, element type, length, lower bound; then each
 * element as its byte length (-1 for NULL) and its bytes, big-endian.
 */
function binaryArray(c: Column, names: Map<string, Buffer>): Buffer {
  const { oid, values } = c;
  let size = 20;
  let hasNull = 0;
  const texts: Buffer[] = oid === TEXT ? new Array<Buffer>(values.length) : [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null) {
      hasNull = 1;
      size += 4;
    } else if (oid === TEXT) {
      let bytes = names.get(v as string);
      if (bytes === undefined) names.set(v as string, (bytes = Buffer.from(v as string, 'utf8')));
      texts[i] = bytes;
      size += 4 + bytes.length;
    } else size += oid === INT4 ? 8 : 12;
  }
  const buf = Buffer.allocUnsafe(size);
  // DataView's setters compile to plain stores; Buffer's writeInt32BE checks its arguments each call.
  const view = new DataView(buf.buffer, buf.byteOffset, size);
  view.setInt32(0, 1);
  view.setInt32(4, hasNull);
  view.setInt32(8, oid);
  view.setInt32(12, values.length);
  view.setInt32(16, 1);
  let o = 20;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null) {
      view.setInt32(o, -1);
      o += 4;
    } else if (oid === TEXT) {
      const bytes = texts[i]!;
      const len = bytes.length;
      view.setInt32(o, len);
      o += 4;
      // Names are a few bytes: a loop beats a call to set() per element.
      for (let j = 0; j < len; j++) buf[o + j] = bytes[j]!;
      o += len;
    } else if (oid === INT4) {
      view.setInt32(o, 4);
      view.setInt32(o + 4, v as number);
      o += 8;
    } else {
      view.setInt32(o, 8);
      // + 0: -0 becomes 0, as in the text encoding.
      view.setFloat64(o + 4, (v as number) + 0);
      o += 12;
    }
  }
  return buf;
}

/** An element of an array literal: quoted (so that a value spelled NULL stays text), with backslash and double quote escaped. */
const ESCAPE = /["\\]/;
const quoted = (x: string) => `"${ESCAPE.test(x) ? x.replace(/["\\]/g, '\\$&') : x}"`;

/** `{a,b,…}`; the few distinct names are quoted once each. */
function textArray(c: Column, names: Map<string, string>): string {
  const out = new Array<string | number>(c.values.length);
  for (let i = 0; i < c.values.length; i++) {
    const v = c.values[i];
    if (v === null || v === undefined) out[i] = 'NULL';
    else if (typeof v === 'number') out[i] = v;
    else {
      let q = names.get(v);
      if (q === undefined) names.set(v, (q = quoted(v)));
      out[i] = q;
    }
  }
  return `{${out.join(',')}}`;
}
