/**
 * /v1/coverage listed neither a scenario with no runs nor a supported server major
 * without runs as a gap. Now `gaps` lists both, the same way (scenario × server × class, and what
 * is missing), on a real API on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Coverage } from '@tunelab/contracts';
import { FIXTURE, post, startApi } from './helpers.ts';

describe('coverage gaps', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let hardwareClass = '';
  const coverage = async (q = '') => (await (await fetch(`${api.url}/v1/coverage${q}`)).json()) as Coverage;

  beforeAll(async () => {
    api = await startApi({}, 'tl_h2_coverage');
    const res = await post(api.url, api.token, FIXTURE, { 'idempotency-key': 'coverage-1' });
    expect(res.status).toBe(201);
    hardwareClass = (await coverage()).hardwareClasses[0]!;
  });
  afterAll(async () => api?.close());

  it('a scenario with no runs at all is a gap on every supported major, and is listed', async () => {
    const body = await coverage();
    expect(body.scenarios).toContain('vacuum-full-rewrite');
    const gaps = body.gaps!.filter((g) => g.scenario === 'vacuum-full-rewrite');
    expect(gaps.map((g) => g.server)).toEqual([14, 15, 16, 17, 18]);
    expect(gaps[0]).toMatchObject({ engine: 'postgresql', hardwareClass, missing: 'scenario', openJobs: 0 });
    expect(gaps[0]!.sentence).toBe(`vacuum-full-rewrite has no run at all: none on postgresql 14 on ${hardwareClass}`);
  });

  it('a measured scenario lists its missing majors the same way, and not the measured one', async () => {
    const gaps = (await coverage()).gaps!.filter((g) => g.scenario === 'vacuum-index-cleanup');
    expect(gaps.map((g) => g.server)).toEqual([14, 16, 17, 18]);
    expect(gaps[0]).toMatchObject({ engine: 'postgresql', hardwareClass, missing: 'server' });
    expect(gaps[0]!.sentence).toBe(`vacuum-index-cleanup has no run on postgresql 14 on ${hardwareClass}`);
  });

  it('a MariaDB/MySQL scenario: one gap per engine, any major; one scenario asked: only its gaps', async () => {
    const gaps = (await coverage()).gaps!.filter((g) => g.scenario === 'innodb-compression-insert');
    expect(gaps.map((g) => [g.engine, g.server, g.missing])).toEqual([
      ['mariadb', null, 'scenario'],
      ['mysql', null, 'scenario'],
    ]);
    const one = await coverage('?scenario=recovery-init-sync');
    expect(one.scenarios).toEqual(['recovery-init-sync']);
    expect(one.gaps!.map((g) => g.server)).toEqual([14, 15, 16, 17, 18]);
  });
});
