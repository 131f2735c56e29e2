/** The psql command that removes a run's databases by hand, when its own clean-up could not. */
import type { ManualCleanup } from '../driver.ts';

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export const postgresManualCleanup: ManualCleanup = ({ target, prefix, left }) => {
  const drops = left
    ? left.map((n) => `-c ${quote(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`)}`)
    : [
        `-c ${quote(`SELECT format('DROP DATABASE %I WITH (FORCE)', datname) FROM pg_database WHERE starts_with(datname, '${prefix}')`)} -- then run each line`,
      ];
  return `psql ${quote(target)} ${drops.join(' ')}`;
};
