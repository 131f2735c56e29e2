/**
 * The libpq convention for choosing a PostgreSQL server without a URL, as psql and pgbench do:
 * PGHOST (a host name or a socket directory), PGHOSTADDR, PGPORT, PGUSER, PGDATABASE; the password
 * from PGPASSWORD or ~/.pgpass and TLS from PGSSLMODE, all as node-postgres reads them
 * (https://www.postgresql.org/docs/current/libpq-envars.html). The target URL built here carries
 * neither password nor sslmode, so `pg` takes both from the environment (and ~/.pgpass, through the
 * `pgpass` package) when it connects, and the run never records the password.
 */
import pg from 'pg';

/** Variables of which at least one must be set for the environment to name a server. */
const SERVER_VARIABLES = ['PGHOST', 'PGHOSTADDR', 'PGPORT', 'PGUSER', 'PGDATABASE'] as const;

export type EnvironmentTarget = { url: string; from: string };

/** The server the libpq environment names, or null when none of SERVER_VARIABLES is set. */
export function postgresTargetFromEnvironment(env: NodeJS.ProcessEnv = process.env): EnvironmentTarget | null {
  const set = SERVER_VARIABLES.filter((v) => env[v]);
  if (!set.length) return null;
  // node-postgres resolves the connection parameters from the same variables (and its defaults).
  const params = new pg.Client();
  const host = env.PGHOSTADDR || params.host;
  const url = `postgresql://${encodeURIComponent(params.user ?? '')}@${encodeURIComponent(host)}:${params.port}/${encodeURIComponent(params.database ?? '')}`;
  const extra = ['PGPASSWORD', 'PGSSLMODE'].filter((v) => env[v]);
  return { url, from: [...set.map((v) => `${v}=${env[v]}`), ...extra].join(', ') };
}
