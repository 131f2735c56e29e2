/**
 * The job queue's tables as the server's statistics see them (pg_stat_user_tables of pg-boss's
 * schema): live and dead rows, and the table with the most dead rows. Read for readiness, so it
 * reads statistics only — never counts rows of the job tables, whatever their size.
 */
import { FLEET_SCHEMA } from './fleet.ts';
import type { DbContext, Queries } from './context.ts';

export type QueueTables = {
  /** Tables in the queue's schema (pg-boss partitions its jobs per queue). */
  tables: number;
  liveRows: number;
  deadRows: number;
  /** The table with the most dead rows, with when it was last vacuumed (by hand or autovacuum); null without tables. */
  mostDead: { table: string; liveRows: number; deadRows: number; vacuumedAt: string | null } | null;
};

type Row = { relname: string; live: number; dead: number; vacuumed: Date | null };

export const queueHealthQueries = {
  /** The queue's tables' live and dead rows (null when the fleet's schema does not exist yet). */
  async queueTables(db: DbContext): Promise<QueueTables | null> {
    const rows = await db.prisma.$queryRaw<Row[]>`
      SELECT relname, n_live_tup::float8 AS live, n_dead_tup::float8 AS dead,
             greatest(last_vacuum, last_autovacuum) AS vacuumed
      FROM pg_catalog.pg_stat_user_tables WHERE schemaname = ${FLEET_SCHEMA}
      ORDER BY n_dead_tup DESC, relname`;
    if (rows.length === 0) return null;
    const top = rows[0]!;
    return {
      tables: rows.length,
      liveRows: rows.reduce((a, r) => a + Number(r.live), 0),
      deadRows: rows.reduce((a, r) => a + Number(r.dead), 0),
      mostDead: {
        table: `${FLEET_SCHEMA}.${top.relname}`,
        liveRows: Number(top.live),
        deadRows: Number(top.dead),
        vacuumedAt: top.vacuumed ? new Date(top.vacuumed).toISOString() : null,
      },
    };
  },
} satisfies Queries;
