// The two edits "Adding an engine" asks for outside the engine's folder, applied as the files load:
// an ENGINE_FACTS entry (packages/contracts/src/engines.ts) and a DRIVERS line (engines/index.ts).
const FACTS = `
  pgcompat: {
    name: 'PG-compatible',
    protocol: 'pgcompat',
    schemes: ['pgcompat:'],
    defaultPort: 5432,
    majorParts: 1,
    managedMajors: [],
    exampleTarget: 'pgcompat://USER@HOST:5432/DBNAME',
    defaultSettings: {},
  },`;

const EDITS = [
  {
    file: '/packages/contracts/src/engines.ts',
    find: 'export const ENGINE_FACTS = {',
    put: (s) => s.replace('export const ENGINE_FACTS = {', `export const ENGINE_FACTS = {${FACTS}`),
  },
  {
    file: '/apps/runner/src/engines/index.ts',
    find: 'export const DRIVERS: readonly Driver[] = [postgresDriver, mysqlDriver];',
    put: (s) =>
      s.replace(
        'export const DRIVERS: readonly Driver[] = [postgresDriver, mysqlDriver];',
        "import { pgcompatDriver } from '../test-support/fake-engine/driver.ts';\nexport const DRIVERS: readonly Driver[] = [postgresDriver, mysqlDriver, pgcompatDriver];",
      ),
  },
];

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  const edit = EDITS.find((e) => url.split('?')[0].endsWith(e.file));
  if (!edit) return result;
  const text = Buffer.from(result.source).toString('utf8');
  // The test fails loudly when a file no longer has the line its edit follows.
  if (!text.includes(edit.find)) throw new Error(`fake engine: ${edit.file} has no "${edit.find}"`);
  return { ...result, source: edit.put(text) };
}
