/**
 * The arithmetic of `--like-article` on the repository's vacuum-index-cleanup (whose ratios the
 * loader holds against its published.json): data size → rows, memory limit, size settings,
 * the I/O limit per tier, what is and is not reproduced, the floors and the clashes.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MeasuredHardware } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import {
  chooseLikeArticle,
  formatSize,
  ioLimitFor,
  likeArticleClashes,
  LikeArticleError,
  planLikeArticle,
  settingValueOf,
  TIER_THROTTLES,
  tierCheck,
} from './like-article.ts';

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const vic = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-index-cleanup'));
const full = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-full-rewrite'));
const innodb = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'innodb-compression-insert'));
const host = { memoryBytes: 24 * GIB, cores: 2 };

describe('planLikeArticle', () => {
  it('at the default size: 1 GB of table → rows, a memory limit of data ÷ 0.375, settings × their ratios', () => {
    const p = planLikeArticle(vic, {}, host);
    expect(p.machine.hardware).toBe('server-1');
    expect(p.dataBytes).toBe(GIB);
    // 1,073,741,824 bytes ÷ 499 bytes a row
    expect(p.value).toBe(2_151_787);
    // 1024 MB ÷ 0.375 = 2,730.7 MB → whole MB
    expect(p.memoryBytes).toBe(2731 * MIB);
    // 0.6667 × 1024 MB = 682.7 MB; 0.1333 × 1024 MB = 136.5 MB
    expect(p.scaled).toEqual({ shared_buffers: '683MB', maintenance_work_mem: '136MB', max_wal_size: '683MB' });
    // The article's other settings (settings.expect), at its values.
    expect(p.article).toEqual({
      autovacuum: 'off',
      synchronous_commit: 'off',
      wal_compression: 'off',
      max_parallel_maintenance_workers: '4',
    });
  });

  it('at 256 MB', () => {
    const p = planLikeArticle(vic, { size: '256MB' }, host);
    // 268,435,456 ÷ 499; 256 ÷ 0.375 = 682.7; 0.6667 × 256 = 170.7; 0.1333 × 256 = 34.1
    expect([p.value, p.memoryBytes]).toEqual([537_947, 683 * MIB]);
    expect(p.scaled).toEqual({ shared_buffers: '171MB', maintenance_work_mem: '34MB', max_wal_size: '171MB' });
  });

  it('below 16 MB a setting is rounded to 8 kB pages', () => {
    const p = planLikeArticle(vic, { size: '48MB' }, host);
    // 0.1333 × 48 MB = 6,552.2 kB → 819 pages of 8 kB
    expect(p.scaled['maintenance_work_mem']).toBe('6552kB');
    expect(p.memoryBytes).toBe(128 * MIB);
    expect(settingValueOf(130 * 1024)).toBe('128kB');
    expect(settingValueOf(1)).toBe('8kB');
    expect(settingValueOf(16 * MIB + 600 * 1024)).toBe('17MB');
  });

  it('another of the article’s machines by its published.json id', () => {
    const p = planLikeArticle(vic, { machine: 'server-2', size: '128MB' }, host);
    expect(p.machine.storage_tier).toBe('hdd-like');
    expect(p.published?.label).toBe('8 cores, 32 GB RAM, HDD');
  });

  it.each([
    [
      { size: '10MB' },
      host,
      /--like-article-size 10MB: too small .* the memory limit would be 27 MB, below its minimum of 64 MB; give at least 48 MB/,
    ],
    // max_wal_size's floor of two 16 MB segments binds before the memory limit's
    [{ size: '40MB' }, host, /max_wal_size would be 27 MB, below its minimum of 32 MB; give at least 48 MB/],
    [{ size: '256' }, host, /--like-article-size 256: expected a size with its unit/],
    [{ size: '0MB' }, host, /--like-article-size 0MB: expected a size with its unit/],
    [
      { size: '512MB' },
      { memoryBytes: GIB, cores: 2 },
      /memory limit would be 1.3 GB, more than the 1 GB this machine has; give at most 384 MB/,
    ],
    [
      { size: '60GB' },
      { memoryBytes: 1024 * GIB, cores: 2 },
      /is rows=129,107,233, outside vacuum-index-cleanup's bounds for rows \(1 to 100000000\)/,
    ],
    [
      { machine: 'server-3' },
      host,
      /--like-article-machine server-3: vacuum-index-cleanup states the conditions of server-1, server-2/,
    ],
  ])('refuses %j', (request, h, message) => {
    expect(() => planLikeArticle(vic, request, h)).toThrow(LikeArticleError);
    expect(() => planLikeArticle(vic, request, h)).toThrow(message);
  });

  it('refuses a scenario that states no article conditions, naming it', () => {
    expect(() => planLikeArticle(full, {}, host)).toThrow(
      /scenario vacuum-full-rewrite states no article conditions \(article_conditions in its scenario.yaml\)/,
    );
  });
});

describe('ioLimitFor: an I/O limit only when the article’s disk is slower than this one', () => {
  it.each([
    ['hdd-like', 'ssd-like', { readIops: 150, writeIops: 150 }, true],
    ['hdd-like', 'nvme-like', { readIops: 150, writeIops: 150 }, true],
    ['network-ssd', 'ssd-like', { readIops: 1000 }, true],
    ['ssd-like', 'nvme-like', { readBps: 550_000_000, writeBps: 550_000_000 }, true],
    ['ssd-like', 'ssd-like', null, true],
    ['hdd-like', 'hdd-like', null, true],
    ['ssd-like', 'network-ssd', null, false],
    ['nvme-like', 'ssd-like', null, false],
    ['ssd-like', null, null, false],
  ] as const)('article %s on a %s disk → %j (reproduced: %s)', (article, here, limit, reproduced) => {
    const r = ioLimitFor(article, here);
    expect(r.limit).toEqual(limit);
    expect(r.reproduced).toBe(reproduced);
  });

  it('a throttle puts a faster disk below the tier’s threshold (contracts’ storage tiers)', () => {
    expect(TIER_THROTTLES['hdd-like']!.readIops).toBeLessThan(400);
    expect(TIER_THROTTLES['network-ssd']!.readIops).toBeGreaterThanOrEqual(400);
    expect(TIER_THROTTLES['network-ssd']!.readIops).toBeLessThan(2500);
    expect(TIER_THROTTLES['ssd-like']!.readBps).toBeLessThanOrEqual(600e6);
  });
});

describe('chooseLikeArticle', () => {
  it('server-1 on an SSD-like 2-core machine: memory limit and settings; not cores, not the absolute size', () => {
    const c = chooseLikeArticle(planLikeArticle(vic, { size: '256MB' }, host), 'ssd-like', host);
    expect(c.params).toEqual({ rows: '537947' });
    expect(c.envelope).toEqual({ memoryBytes: 683 * MIB });
    expect(c.settings).toMatchObject({ shared_buffers: '171MB', autovacuum: 'off' });
    expect(c.line).toMatch(
      /^like the article's server-1 \(8 cores, 32 GB RAM, SSD\): reproduces data:memory 0.375 \(a 256 MB table, rows=537,947, in a 683 MB memory limit\), shared_buffers:data 0.667 \(shared_buffers=171MB\), .*disk tier SSD-like \(this disk measures SSD-like; no I\/O limit\); the article's settings autovacuum=off, .*; not reproduced: 8 cores \(this machine has 2\), absolute size 12 GB \(here 256 MB\)$/,
    );
    expect(c.note.kind).toBe('like-article');
    expect(c.note.text).toMatch(/^emulated like the article's server-1/);
  });

  it('server-2 (HDD) on an SSD-like machine: the envelope throttles reads and writes to 150/s', () => {
    const c = chooseLikeArticle(planLikeArticle(vic, { machine: 'server-2', size: '64MB' }, host), 'ssd-like', host);
    expect(c.envelope).toEqual({ memoryBytes: Math.round(64 / 0.375) * MIB, readIops: 150, writeIops: 150 });
    expect(c.line).toMatch(
      /disk tier HDD-like \(this disk measures SSD-like, throttled to 150 reads\/s, 150 writes\/s\)/,
    );
  });

  it('a disk slower than the article’s, the article’s cores and size: said as not reproduced or reproduced', () => {
    const big = { memoryBytes: 64 * GIB, cores: 8 };
    const c = chooseLikeArticle(planLikeArticle(vic, { size: '12GB' }, big), 'network-ssd', big);
    expect(c.envelope).toEqual({ memoryBytes: 32 * GIB });
    expect(c.line).toMatch(/; not reproduced: disk tier SSD-like \(this disk measures network SSD, slower\)$/);
    expect(formatSize(12 * GIB)).toBe('12 GB');
  });
});

describe('likeArticleClashes', () => {
  const plan = planLikeArticle(vic, {}, host);
  it('names every option --like-article would choose itself', () => {
    expect(
      likeArticleClashes(plan, {
        params: { rows: '10' },
        settings: { shared_buffers: '1GB', autovacuum: 'on', work_mem: '4MB' },
        envelope: true,
      }),
    ).toEqual([
      '--envelope (--like-article chooses the envelope)',
      '--param rows (--like-article chooses it from the data size; --like-article-size sets that)',
      '--set shared_buffers (--like-article scales it with the data)',
      "--set autovacuum (--like-article sets the article's value, off)",
    ]);
  });
  it('leaves other parameters and settings alone', () => {
    expect(likeArticleClashes(plan, { params: {}, settings: { work_mem: '4MB' }, envelope: false })).toEqual([]);
  });
});

describe('tierCheck after a --like-article run', () => {
  const probe = (readIopsQd1: number | null): MeasuredHardware => ({
    measuredAt: '2026-11-26T13:00:00.000Z',
    durationMs: 4800,
    diskTool: 'fio-3.33',
    fsyncP50Us: 900,
    fsyncP99Us: 4000,
    fsyncSamples: 400,
    readIopsQd1,
    readIopsQd16: readIopsQd1 === null ? null : readIopsQd1 * 2,
    seqWriteMBps: 200,
    cpuScore: 1500,
    cpuWorkload: 'tunelab-cpu-1/node-20',
    notes: [],
  });
  it('is silent when the probe inside the envelope measured the article machine’s tier', () => {
    expect(tierCheck('hdd-like', probe(150))).toBeNull();
  });
  it('says which tier it measured instead, and that the answers say so', () => {
    expect(tierCheck('hdd-like', probe(9_000))).toBe(
      "--like-article: the probe inside the envelope measured SSD-like, not the article's HDD-like: this run does not reproduce the article's disk, and its answers say so",
    );
    expect(tierCheck('ssd-like', undefined)).toMatch(
      /measured no tier \(the probe inside the envelope did not measure/,
    );
    expect(tierCheck('ssd-like', probe(null))).toMatch(/measured no tier/);
  });
});

// innodb-compression-insert states a machine its article does not describe, no data:memory (the
// buffer pool is the memory, a parameter scaled with the data) and the article's own parameters.
describe('--like-article for innodb-compression-insert', () => {
  it('plans no memory limit: rows and buffer_pool_mb from the data size, threads and max_seconds as the article ran', () => {
    const p = planLikeArticle(innodb, {}, host);
    expect(p.published).toBeNull();
    expect(p.memoryBytes).toBeNull();
    // 16 MiB ÷ 160 bytes a row; 0.43 × 16 MiB = 6.88 MiB → 7
    expect(p.value).toBe(104_858);
    expect(p.params).toEqual({ threads: '30', max_seconds: '1800', buffer_pool_mb: '7' });
    expect(p.scaledParams).toEqual(['buffer_pool_mb']);
    expect(p.scaled).toEqual({});
  });

  it('chooses I/O limits only, and says what the article does not state', () => {
    const c = chooseLikeArticle(planLikeArticle(innodb, { size: '64MB' }, host), 'ssd-like', host);
    expect(c.envelope).toEqual({ readIops: 150, writeIops: 150 });
    expect(c.params).toEqual({ rows: '419430', threads: '30', max_seconds: '1800', buffer_pool_mb: '28' });
    expect(c.settings).toEqual({});
    expect(c.line).toBe(
      "like the article's machine (a single disk, 2012; cores and memory not stated): reproduces the data (a 64 MB table, rows=419,430), buffer_pool_mb:data 0.43 (buffer_pool_mb=28), disk tier HDD-like (this disk measures SSD-like, throttled to 150 reads/s, 150 writes/s); the article's parameters threads=30, max_seconds=1800; not reproduced: cores and memory (the article does not state them), absolute size 9.3 GB (here 64 MB)",
    );
  });

  it('refuses a size whose buffer pool would fall below the parameter’s minimum (5 MB), naming the smallest', () => {
    expect(() => planLikeArticle(innodb, { size: '8MB' }, host)).toThrow(
      /--like-article-size 8MB: too small to keep the article's ratios — buffer_pool_mb would be 3\.4 MB, below its minimum of 5 MB; give at least 12 MB/,
    );
  });

  it('a --param of what is scaled clashes; the article’s own parameter values may be replaced', () => {
    const p = planLikeArticle(innodb, {}, host);
    expect(
      likeArticleClashes(p, { params: { buffer_pool_mb: '128', threads: '8', max_seconds: '5' }, envelope: false }),
    ).toEqual(['--param buffer_pool_mb (--like-article scales it with the data)']);
  });
});
