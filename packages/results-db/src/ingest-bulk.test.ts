// A large run through the ingest statement (one `unnest` of arrays per table, ingest.ts): every
// value, order, unit, sweep point and null comes back as sent, and a statement that fails part-way
// leaves no row behind, on both backends.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import type { ResultsDb } from './index.ts';
import { BACKENDS, useResultsDb } from './test-backends.ts';
import { ingestDocument, prismaOf } from './testing.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

const VARIANTS = ['a', 'b', 'c', 'd'];
const METRICS = [
  ['duration', 's'],
  ['wal_bytes', 'bytes'],
  ['tps', 'count'],
  ['cpu', '%'],
  ['latency', 'ms'],
] as const;
const REPETITIONS = 1000;

/**
 * Doubles from 5e-324 to 1e5 with awkward decimals, what float8 must keep bit for bit (within every
 * unit's range); points may be negative.
 */
const valueAt = (i: number) => (i % 97 === 0 ? 5e-324 : Math.abs(Math.sin(i + 0.5)) * 10 ** ((i % 26) - 20));
const pointAt = (i: number) => Math.sin(i + 0.25) * 10 ** ((i % 37) - 20);

/**
 * 4 variants × 1000 repetitions × 5 metrics = 20,000 samples (blocks with positions in the first
 * 500 repetitions, none after; the latency metric at a sweep point) and 20,000 time-series points
 * (x descending in every other series, a sweep point on a third of them).
 */
function bigRun(key: string) {
  const doc = structuredClone(fixture);
  doc.scenario.key = key;
  delete doc.order;
  const samples: Record<string, unknown>[] = [];
  for (let r = 1; r <= REPETITIONS; r++)
    VARIANTS.forEach((variant, v) => {
      for (const [metric, unit] of METRICS) {
        const sample: Record<string, unknown> = {
          variant,
          repetition: r,
          metric,
          unit,
          value: valueAt(samples.length),
        };
        if (metric === 'latency') sample.point = { param: 'vus', value: 8 };
        if (r <= 500) sample.position = ((v + r) % VARIANTS.length) + 1;
        samples.push(sample);
      }
    });
  const timeSeries: Record<string, unknown>[] = [];
  for (let i = 0; i < 20_000; i++) {
    const series = Math.floor(i / 50);
    const step = series % 2 === 0 ? i % 50 : 49 - (i % 50);
    const p: Record<string, unknown> = {
      variant: VARIANTS[series % VARIANTS.length],
      repetition: Math.floor(series / VARIANTS.length) + 1,
      metric: 'dead_tuples',
      x: step / 7,
      value: pointAt(i),
    };
    if (i % 3 === 0) p.point = { param: 'vus', value: 16 };
    timeSeries.push(p);
  }
  doc.samples = samples;
  doc.timeSeries = timeSeries;
  return doc;
}

for (const backend of BACKENDS) {
  describe(`ingestRun of a large run on ${backend}`, () => {
    const getDb = useResultsDb(backend);
    let db: ResultsDb;
    beforeAll(() => {
      db = getDb();
    });

    const counts = async () => {
      const [c] = await prismaOf(db).$queryRaw<Record<string, bigint>[]>`
        SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM samples) AS samples,
               (SELECT count(*) FROM time_series_points) AS points, (SELECT count(*) FROM scenarios) AS scenarios,
               (SELECT count(*) FROM hardware_profiles) AS hardware, (SELECT count(*) FROM database_environments) AS environments`;
      return Object.fromEntries(Object.entries(c!).map(([k, v]) => [k, Number(v)]));
    };

    it('round-trips 20,000 samples and 20,000 points exactly: values, order, units, sweep points, nulls', async () => {
      const doc = bigRun('bulk');
      const res = await ingestDocument(db, doc, 'bulk-1');
      expect(res.run).toMatchObject({ samples: 20_000, timeSeriesPoints: 20_000 });
      const run = await db.getRun(res.run.id);
      // Points in the order sent; samples as getRun orders them (variant, repetition, metric).
      expect(run!.timeSeries).toEqual(doc.timeSeries);
      const key = (s: { variant: string; repetition: number; metric: string }) =>
        `${s.variant}\u0000${String(s.repetition).padStart(5, '0')}\u0000${s.metric}`;
      // A run record leaves out the samples' positions (read below).
      const sorted = [...doc.samples]
        .sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0))
        .map(({ position: _, ...rest }) => rest);
      expect(run!.samples).toEqual(sorted);
      // Stored in the order sent, positions and sweep points with them (the unnest keeps the arrays' order).
      const rows = await prismaOf(db).$queryRaw<{ k: string }[]>`
        SELECT concat_ws('/', variant, repetition, metric, coalesce(position::text, '-'), coalesce(point_param, '-')) AS k
          FROM samples WHERE run_id = ${res.run.id}::uuid ORDER BY id`;
      type Sent = { variant: string; repetition: number; metric: string; position?: number; point?: { param: string } };
      expect(rows.map((r) => r.k)).toEqual(
        doc.samples.map((s: Sent) =>
          [s.variant, s.repetition, s.metric, s.position ?? '-', s.point?.param ?? '-'].join('/'),
        ),
      );
      const [nulls] = await prismaOf(db).$queryRaw<{ unpositioned: bigint; unswept: bigint; points_unswept: bigint }[]>`
        SELECT (SELECT count(*) FROM samples WHERE run_id = ${res.run.id}::uuid AND position IS NULL) AS unpositioned,
               (SELECT count(*) FROM samples WHERE run_id = ${res.run.id}::uuid AND point_param IS NULL AND point_value IS NULL) AS unswept,
               (SELECT count(*) FROM time_series_points WHERE run_id = ${res.run.id}::uuid AND point_param IS NULL) AS points_unswept`;
      expect(Number(nulls!.unpositioned)).toBe(10_000);
      expect(Number(nulls!.unswept)).toBe(16_000);
      expect(Number(nulls!.points_unswept)).toBe(13_333);

      // The same key and body again changes nothing.
      const before = await counts();
      const again = await ingestDocument(db, doc, 'bulk-1');
      expect(again).toMatchObject({ outcome: 'replayed', run: { id: res.run.id } });
      expect(await counts()).toEqual(before);
    }, 120_000);

    it('leaves nothing behind when the statement fails part-way: a point without a value, a sample without a unit', async () => {
      await ingestDocument(db, bigRun('bulk-parents'), 'bulk-parents-1');
      const before = await counts();
      const valid = bigRun('bulk-parents');
      const parse = () => RunSubmission.parse(valid);
      // ingestRun trusts its caller's validation: these rows reach the database and fail there.
      // Known parents (one statement): the last point's value violates NOT NULL after all the
      // samples and 19,999 points went in.
      const nullPoint = parse();
      Reflect.set(nullPoint.timeSeries[nullPoint.timeSeries.length - 1]!, 'value', null);
      await expect(
        db.ingestRun({ submission: nullPoint, document: valid, idempotencyKey: 'bulk-fail', runnerId: null }),
      ).rejects.toThrow(/null value|not-null|violates/i);
      expect(await counts()).toEqual(before);
      // New parents (a transaction: scenario, hardware, environment, then the run): the last
      // sample has no unit, a NOT NULL violation after the parents and 19,999 samples went in.
      const fresh = structuredClone(valid);
      fresh.scenario.key = 'bulk-new';
      fresh.hardware.cpuModel = 'A machine never seen';
      fresh.database.settings = { ...fresh.database.settings, work_mem: '77MB' };
      const noUnit = RunSubmission.parse(fresh);
      Reflect.set(noUnit.samples[noUnit.samples.length - 1]!, 'unit', null);
      await expect(
        db.ingestRun({ submission: noUnit, document: fresh, idempotencyKey: 'bulk-fail', runnerId: null }),
      ).rejects.toThrow(/null value|not-null|violates/i);
      expect(await counts()).toEqual(before);
      // The key was never taken: the valid body under it is stored now.
      const stored = await ingestDocument(db, fresh, 'bulk-fail');
      expect(stored.outcome).toBe('created');
      expect(await counts()).toEqual({
        ...before,
        runs: before.runs! + 1,
        samples: before.samples! + 20_000,
        points: before.points! + 20_000,
        scenarios: before.scenarios! + 1,
        hardware: before.hardware! + 1,
        environments: before.environments! + 1,
      });
    }, 120_000);
  });
}
