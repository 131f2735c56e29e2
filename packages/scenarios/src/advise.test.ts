/**
 * A scenario's `advise:` block is read through this package and validated by contracts'
 * AdviseSpec: a real scenario folder copied, its block broken one field at a time, is refused with
 * a sentence that names the field; the repository's scenarios each load with theirs.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { DEFAULT_SCENARIOS_DIR, listScenarioDirs, loadScenario, ScenarioError } from './index.ts';

const root = await mkdtemp(path.join(os.tmpdir(), 'tunelab-advise-'));
afterAll(() => rm(root, { recursive: true, force: true }));

let n = 0;
/** vacuum-full-rewrite with `advise.<path>` set to `value` (undefined: deleted); returns the load's error message. */
async function refusal(at: string[], value: unknown): Promise<string> {
  const dir = path.join(root, String(n++), 'vacuum-full-rewrite');
  await cp(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-full-rewrite'), dir, { recursive: true });
  const file = path.join(dir, 'scenario.yaml');
  const doc = parseDocument(await readFile(file, 'utf8'));
  if (value === undefined) doc.deleteIn(['advise', ...at]);
  else doc.setIn(['advise', ...at], value);
  await writeFile(file, doc.toString());
  const error = await loadScenario(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ScenarioError);
  return (error as Error).message;
}

describe('a scenario’s advise block', () => {
  it('each scenario of the repository loads with one', async () => {
    const dirs = await listScenarioDirs(DEFAULT_SCENARIOS_DIR);
    const loaded = await Promise.all(dirs.map((d) => loadScenario(d)));
    expect(loaded.filter((s) => s.doc.advise).map((s) => s.key)).toEqual(loaded.map((s) => s.key));
  });

  it('a threshold out of its range is refused, naming the field', async () => {
    expect(await refusal(['tables', 'min_dead_fraction'], 5)).toMatch(
      /^vacuum-full-rewrite\/scenario\.yaml: advise\.tables\.min_dead_fraction: .*(1|too big)/m,
    );
  });

  it('a field the block does not have is refused, naming it', async () => {
    expect(await refusal(['colour'], 'red')).toMatch(/advise: .*colour/);
  });

  it('a set no inspector fills is refused, naming the field', async () => {
    expect(await refusal(['tables', 'set'], 'wideTables')).toMatch(/advise\.tables\.set: /);
  });

  it('a placeholder naming no fact of the set is refused with the facts it may name', async () => {
    const message = await refusal(['why'], '{deadTuple:int} dead');
    expect(message).toContain('advise.why: {deadTuple} names no fact of the set bloated; expected one of: rows,');
  });

  it('an unknown format, an unclosed alternative and a rule placeholder naming no field of the block are refused', async () => {
    expect(await refusal(['why'], '{deadTuples:hex}')).toContain('advise.why: unknown format "hex"');
    expect(await refusal(['why'], '[{deadTuples}|none')).toContain('advise.why: "[" is not closed');
    expect(await refusal(['rule'], 'at least {tables.min_dead_rows}')).toContain(
      'advise.rule: {tables.min_dead_rows} names no field of this advise block',
    );
  });

  it('a parameter the scenario does not declare, or from a fact the set has not, is refused naming it', async () => {
    expect(await refusal(['params', 'rowz'], { fact: 'rows' })).toMatch(
      /advise\.params\.rowz: unknown parameter "rowz"; expected one of: .*rows/,
    );
    expect(await refusal(['params', 'rows', 'fact'], 'bufferPoolShare')).toContain(
      'advise.params.rows.fact: unknown fact "bufferPoolShare"',
    );
    expect(await refusal(['scale'], 'tables')).toContain('advise.scale: "tables" is not one of advise.params: rows');
  });

  it('tables and database together are refused', async () => {
    expect(await refusal(['database'], { where: { relationFiles: { min: 1 } }, facts: ['relationFiles'] })).toContain(
      'advise: give exactly one of tables (a table set) and database',
    );
  });
});
