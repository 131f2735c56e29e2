/**
 * A scenario that needs a newer server than the one advise reads is not applicable, and says so in
 * the engine's own words: on the real MariaDB, "needs MariaDB X.Y.Z or newer" — MariaDB's release
 * numbering, not PostgreSQL's name or its server_version_num.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { releaseOfVersionNum } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { DRIVERS, planTarget } from '../engines/index.ts';
import { TEST_MYSQL_URL } from '../test-support/mysql.ts';
import { adviseFrom, setRequests } from './advise.ts';
import { answerSource } from './answers.ts';

describe('advise: a scenario needing a newer server', () => {
  it('names the engine and release it needs from the engine facts (MariaDB)', async () => {
    const scenario = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'innodb-compression-insert'));
    const driver = DRIVERS.find((d) => d.protocols.includes('mysql:'))!;
    const inspection = await driver.inspectCatalog!(TEST_MYSQL_URL, 5, setRequests([scenario], driver.engines));
    expect(inspection.engine).toBe('mariadb');
    // One patch release past the server: a minimum it does not reach.
    const min = inspection.versionNum + 1;
    const needing = {
      ...scenario,
      doc: { ...scenario.doc, requires: { ...scenario.doc.requires, minServerVersionNum: min } },
    };
    const hardware = { cores: 2, memoryGb: 4, storage: 'ssd' as const };
    const [advice] = await adviseFrom({
      inspection,
      scenarios: [needing],
      hardware,
      answer: answerSource(null),
      localTarget: null,
    });
    const release = releaseOfVersionNum('mariadb', min);
    expect(release).toMatch(/^\d+\.\d+\.\d+$/);
    expect(advice!.notApplicable).toBe(`needs MariaDB ${release} or newer; this server is ${inspection.version}`);
    expect(advice!.notApplicable).not.toMatch(/PostgreSQL|server_version_num/);
    expect(advice!.tables).toEqual([]);

    // At the server's own version the scenario applies again.
    const reached = {
      ...needing,
      doc: { ...needing.doc, requires: { ...needing.doc.requires, minServerVersionNum: inspection.versionNum } },
    };
    const [applies] = await adviseFrom({
      inspection,
      scenarios: [reached],
      hardware,
      answer: answerSource(null),
      localTarget: null,
    });
    expect(applies!.notApplicable).toBeNull();
  });

  it('names no --target for a scenario that runs only on a managed server the runner has none of', async () => {
    const scenario = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'innodb-compression-insert'));
    const driver = DRIVERS.find((d) => d.protocols.includes('mysql:'))!;
    const inspection = await driver.inspectCatalog!(TEST_MYSQL_URL, 5, setRequests([scenario], driver.engines));
    const managed = { ...scenario, doc: { ...scenario.doc, target: { managed: 'mariadb' as const } } };
    // The command advise printed before: the runner refuses a --target for a managed scenario.
    expect(() => planTarget(managed.doc, TEST_MYSQL_URL)).toThrow(/leave out --target/);
    const [advice] = await adviseFrom({
      inspection,
      scenarios: [managed],
      hardware: { cores: 2, memoryGb: 4, storage: 'ssd' },
      answer: answerSource(null),
      localTarget: TEST_MYSQL_URL,
    });
    expect(advice!.notApplicable).toBe(
      'runs only on a throwaway MariaDB server the runner manages, and the runner manages no MariaDB major it accepts',
    );
    expect(advice!.tables).toEqual([]);
  });

  it('writes each engine’s releases its own way', () => {
    expect(releaseOfVersionNum('postgresql', 120000)).toBe('12');
    expect(releaseOfVersionNum('postgresql', 150019)).toBe('15.19');
    expect(releaseOfVersionNum('mariadb', 100600)).toBe('10.6');
    expect(releaseOfVersionNum('mariadb', 101119)).toBe('10.11.19');
    expect(releaseOfVersionNum('mysql', 80036)).toBe('8.0.36');
  });
});
