import { z } from 'zod';
import { relationName } from '../scenario-names.ts';

const PARAM_REF = /^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/;
/** A literal, or one `{{param}}` placeholder resolved (and range-checked) when the step runs. */
const orParam = <T extends z.ZodType>(literal: T, what: string) =>
  z.union([literal, z.string().regex(PARAM_REF, `must be ${what} or a {{param}} placeholder`)]);

/** Limits of the TPROC-C driver (the runner checks resolved placeholders against the same ones). */
export const TPROCC_LIMITS = {
  vus: { min: 1, max: 1000 },
  warehouses: { min: 1, max: 100_000 },
  seconds: { max: 86_400 },
} as const;
export const TPROCC_MIXES = ['hammerdb', 'tpcc'] as const;

/**
 * `action: workload`, `kind: tprocc` (PostgreSQL): `vus` closed-loop virtual users, each on its
 * own connection with a home warehouse, run the five TPROC-C transaction functions of the
 * scenario's SQL for `ramp_up` seconds, then for a measured window of `duration` seconds.
 * `mix`: `hammerdb` (new-order 10, payment 10, delivery/order-status/stock-level 1 each, of 23)
 * or `tpcc` (45/43/4/4/4). Records, for `source: recorded` metrics: `nopm`, `tpm`,
 * `transactions`, `rollbacks`, `errors`, `deadlocks`, per type (`neword`, `payment`,
 * `delivery`, `ostat`, `slev`) `transactions_<type>`, `errors_<type>`,
 * `latency_p50|p95|p99_<type>` (ms); for every relation of `tables` `hot_pct_<table>`,
 * `<table>_heap_before|after`, `<table>_indexes_before|after` (MB); `database_size_before|after`,
 * `database_growth`, `wal_window` (MB); and the time series `tps` (x = second of the window).
 */
export const TproccWorkloadStep = z.strictObject({
  action: z.literal('workload'),
  kind: z.literal('tprocc'),
  vus: orParam(
    z.number().int().min(TPROCC_LIMITS.vus.min).max(TPROCC_LIMITS.vus.max),
    'a whole number of virtual users',
  ),
  warehouses: orParam(
    z.number().int().min(TPROCC_LIMITS.warehouses.min).max(TPROCC_LIMITS.warehouses.max),
    'a whole number of warehouses',
  ),
  mix: orParam(z.enum(TPROCC_MIXES), `one of ${TPROCC_MIXES.join(', ')}`).default('hammerdb'),
  /** Seconds of load before the measured window. */
  ramp_up: orParam(z.number().min(0).max(TPROCC_LIMITS.seconds.max), 'a number of seconds').default(2),
  /** Seconds of the measured window. */
  duration: orParam(z.number().positive().max(TPROCC_LIMITS.seconds.max), 'a number of seconds'),
  /** Tables whose HOT ratio and sizes are recorded. */
  tables: z.array(relationName).min(1).max(20).default(['stock', 'order_line', 'customer', 'district']),
});
export type TproccWorkloadStep = z.infer<typeof TproccWorkloadStep>;

/** A concurrent workload; `kind` picks the driver (one so far). */
export const WorkloadStep = z.discriminatedUnion('kind', [TproccWorkloadStep]);
export type WorkloadStep = z.infer<typeof WorkloadStep>;
