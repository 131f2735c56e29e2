/**
 * Many runs' details in one read (the site build renders a page per run): the runs by primary
 * key through Prisma, then their samples, series points and the shown parts of their stored
 * submissions in one statement each, straight to the driver. The same records as getRun (one
 * mapping: queries.ts), at a few statements per batch instead of a relation load per run.
 */
import type { RunDetailRecord } from '@tunelab/contracts';
import { DatabaseEnvironment, noiseDetailOf } from '@tunelab/contracts';
import { z } from 'zod';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { SqlRunner } from './connection.ts';
import type { DbContext, Queries } from './context.ts';
import { runHardwareSpec, runSummarySelect, storedSubmission, toSummary, withPoint } from './queries.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const Params = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

type DocRow = { id: string; options: unknown; order: unknown; notes: unknown; warnings: unknown; hardware: unknown };

/** The details of the runs with these ids, in the order asked; ids it does not hold are left out. */
export async function getRuns(
  prisma: PrismaClient,
  sql: Pick<SqlRunner, 'query'>,
  ids: readonly string[],
): Promise<RunDetailRecord[]> {
  const wanted = [...new Set(ids.filter((id) => UUID.test(id)).map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return [];
  const runs = await prisma.run.findMany({
    where: { id: { in: wanted } },
    select: {
      ...runSummarySelect,
      params: true,
      noise: true,
      hardwareProfile: { select: { fingerprint: true, hardwareClass: true, spec: true } },
    },
  });
  // getRun's order: samples by variant, repetition, metric, point; series points as stored. One
  // row per run, its rows as a JSON array (parsed natively), not one driver row per sample.
  const [samples, series, docs] = await Promise.all([
    sql.query<{ run_id: string; rows: [string, number, string, string, number, string | null, number | null][] }>(
      `SELECT run_id::text, json_agg(json_build_array(variant, repetition, metric, unit, value, point_param, point_value)
                                    ORDER BY variant, repetition, metric, point_value) AS rows
       FROM samples WHERE run_id = ANY($1::uuid[]) GROUP BY run_id`,
      [wanted],
    ),
    sql.query<{ run_id: string; rows: [string, number, string, number, number, string | null, number | null][] }>(
      `SELECT run_id::text, json_agg(json_build_array(variant, repetition, metric, x, value, point_param, point_value)
                                    ORDER BY id) AS rows
       FROM time_series_points WHERE run_id = ANY($1::uuid[]) GROUP BY run_id`,
      [wanted],
    ),
    // The shown parts of the stored submission, not the whole document (which repeats every
    // sample). The column is json (text): each `->` parses the whole document again, so it is
    // parsed once, into the record of the parts (116 → 45 ms for 250 runs on PGlite).
    sql.query<DocRow>(
      `SELECT id::text, d.options, d."order", d.notes, d.warnings,
              CASE WHEN d.hardware->'measured' IS NOT NULL THEN json_build_object('measured', d.hardware->'measured') END AS hardware
       FROM runs, json_to_record(document) AS d(options json, "order" json, notes json, warnings json, hardware json)
       WHERE id = ANY($1::uuid[])`,
      [wanted],
    ),
  ]);
  const samplesOf = new Map(samples.map((r) => [r.run_id, r.rows]));
  const seriesOf = new Map(series.map((r) => [r.run_id, r.rows]));
  const docOf = new Map(
    docs.map(({ id, ...parts }) => [
      id,
      Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== null && v !== undefined)),
    ]),
  );
  const runById = new Map(runs.map((r) => [r.id, r]));
  return wanted.flatMap((id): RunDetailRecord[] => {
    const r = runById.get(id);
    if (!r) return [];
    const doc = storedSubmission.parse(docOf.get(id) ?? {});
    const env = r.databaseEnvironment;
    return [
      {
        ...toSummary(r),
        samples: (samplesOf.get(id) ?? []).map(([variant, repetition, metric, unit, value, param, point]) =>
          withPoint({ variant, repetition, metric, unit, value }, param, point),
        ),
        params: Params.parse(r.params),
        hardwareSpec: runHardwareSpec(r.hardwareProfile.spec, doc),
        databaseEnvironment: DatabaseEnvironment.parse({
          engine: env.engine,
          version: env.version,
          major: env.major,
          minor: env.minor,
          settings: env.settings,
        }),
        timeSeries: (seriesOf.get(id) ?? []).map(([variant, repetition, metric, x, value, param, point]) =>
          withPoint({ variant, repetition, metric, x, value }, param, point),
        ),
        options: doc.options ?? null,
        notes: doc.notes ?? [],
        warnings: doc.warnings ?? [],
        order: doc.order ?? null,
        noise: noiseDetailOf(r.noise),
      },
    ];
  });
}

/** The batched run read as a `ResultsDb` method (see context.ts). */
export const runDetailQueries = {
  /** Several runs' details in one read, in the order asked (the site build reads its runs in batches). */
  getRuns: (db: DbContext, ids: readonly string[]) => getRuns(db.prisma, db.sql, ids),
} satisfies Queries;
