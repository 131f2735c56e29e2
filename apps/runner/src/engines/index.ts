/**
 * The driver registry. A driver is one file in this folder implementing `Driver` (driver.ts) and
 * one entry in DRIVERS; it is chosen by the protocol of the target URL. A managed provider (a
 * throwaway cluster the runner creates) is one file and one entry in MANAGED_PROVIDERS, chosen
 * by the scenario's `target: { managed: <engine> }`.
 */
import { SUPPORTED_POSTGRESQL_MAJORS as SUPPORTED_MAJORS, type ScenarioDocument } from '@tunelab/contracts';
import { UsageError } from '../errors.ts';
import type { Driver, ManagedOpenOptions, ManagedProvider, TargetHandle } from './driver.ts';
import { managedPostgresqlProvider } from './managed-postgresql/provider.ts';
import { mysqlDriver } from './mysql/driver.ts';
import { postgresDriver } from './postgresql/driver.ts';

export const DRIVERS: readonly Driver[] = [postgresDriver, mysqlDriver];
export const MANAGED_PROVIDERS: readonly ManagedProvider[] = [managedPostgresqlProvider];

function protocolOf(target: string): string {
  try {
    return new URL(target).protocol;
  } catch {
    throw new UsageError(
      `--target must be a connection URL such as postgres://user@host:5432/postgres, got "${target.replace(/:[^:@/]*@/, ':***@')}"`,
    );
  }
}

/** The driver for a target URL; a UsageError naming the protocol when there is none. */
export function driverFor(target: string): Driver {
  const protocol = protocolOf(target);
  const driver = DRIVERS.find((d) => d.protocols.includes(protocol));
  if (driver) return driver;
  throw new UsageError(
    `no driver in this runner for ${protocol}// targets; supported: ${DRIVERS.flatMap((d) => d.protocols.map((p) => `${p}//`)).join(', ')}`,
  );
}

/** The majors `--server` takes, in a sentence. */
const SERVER_CHOICES = `--server ${SUPPORTED_MAJORS[0]}…${SUPPORTED_MAJORS.at(-1)} (${SUPPORTED_MAJORS.join(', ')})`;

/**
 * Checks the scenario against the target and picks the driver, before anything is created:
 * a managed scenario gets its provider (and must not be given --target); `--server MAJOR` gets a
 * managed PostgreSQL server of that major for any PostgreSQL scenario; otherwise --target is
 * required and its driver must serve one of the scenario's engines.
 */
export function planTarget(
  doc: ScenarioDocument,
  target: string | undefined,
  server?: number,
): { kind: 'server'; driver: Driver; url: string } | { kind: 'managed'; provider: ManagedProvider } {
  if (server !== undefined) {
    if (target !== undefined)
      throw new UsageError(
        `--server and --target both choose the server; give one: ${SERVER_CHOICES} for a throwaway server the runner manages, or --target URL for an existing one`,
      );
    if (!SUPPORTED_MAJORS.some((m) => m === server))
      throw new UsageError(`--server ${server}: not a PostgreSQL major this runner can install; use ${SERVER_CHOICES}`);
    if (!doc.engines.includes('postgresql'))
      throw new UsageError(
        `scenario ${doc.key} runs on ${doc.engines.join(', ')}; --server starts PostgreSQL only (${SUPPORTED_MAJORS.join(', ')}): give --target mysql://… or mariadb://… for a server of yours`,
      );
    const provider = MANAGED_PROVIDERS.find((p) => p.engine === 'postgresql');
    if (!provider) throw new UsageError('this runner has no managed PostgreSQL provider');
    return { kind: 'managed', provider };
  }
  if (doc.target) {
    const engine = doc.target.managed;
    if (target !== undefined)
      throw new UsageError(
        `scenario ${doc.key} runs on a throwaway ${engine} cluster the runner creates itself; leave out --target`,
      );
    const provider = MANAGED_PROVIDERS.find((p) => p.engine === engine);
    if (!provider)
      throw new UsageError(
        `scenario ${doc.key} needs a managed ${engine} cluster, and this runner has no managed ${engine} provider yet`,
      );
    return { kind: 'managed', provider };
  }
  if (target === undefined || target === '')
    throw new UsageError(
      `scenario ${doc.key} needs a database server; pick one of three ways: --target <url> (a server of yours, e.g. postgres://postgres@127.0.0.1:5432/postgres${doc.engines.includes('postgresql') ? '' : ' or mysql://root@127.0.0.1:3306/test'})${doc.engines.includes('postgresql') ? `, ${SERVER_CHOICES} (a throwaway server the runner installs and manages), or the libpq environment psql uses (PGHOST, PGPORT, PGUSER, PGDATABASE; PGPASSWORD or ~/.pgpass)` : ''}`,
    );
  const driver = driverFor(target);
  if (!driver.engines.some((e) => doc.engines.includes(e))) {
    throw new UsageError(
      `scenario ${doc.key} runs on ${doc.engines.join(', ')}; the target ${protocolOf(target)}// is ${driver.engines.join(' or ')}`,
    );
  }
  return { kind: 'server', driver, url: target };
}

/** Opens what planTarget chose. The caller must `close()` the handle in every outcome. */
export async function openTarget(plan: ReturnType<typeof planTarget>, opts: ManagedOpenOptions): Promise<TargetHandle> {
  if (plan.kind === 'managed') return plan.provider.open(opts);
  return { driver: plan.driver, url: plan.url, close: async () => {} };
}
