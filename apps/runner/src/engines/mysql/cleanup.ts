/** The mysql client command that removes a run's schemas and puts its global settings back by hand. */
import { ENGINE_FACTS } from '@tunelab/contracts';
import type { ManualCleanup } from '../driver.ts';

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export const mysqlManualCleanup: ManualCleanup = ({ target, left, globals }) => {
  const url = new URL(target);
  const statements = [
    ...(left ?? []).map((n) => `DROP DATABASE IF EXISTS \`${n}\``),
    ...Object.entries(globals ?? {}).map(([k, v]) => `SET GLOBAL ${k} = ${/^-?\d+$/.test(v) ? v : `'${v}'`}`),
  ];
  const user = decodeURIComponent(url.username) || 'root';
  return `mysql -h ${url.hostname || '127.0.0.1'} -P ${url.port || ENGINE_FACTS.mysql.defaultPort} -u ${user} -e ${quote(statements.join('; '))}`;
};
