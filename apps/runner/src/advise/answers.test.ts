/**
 * `lookupAnswer` (advise's one reading of GET /v1/answers) over answers shaped as the API sends
 * them, cut to the fields it reads: which group answers a table, and what it says when that group
 * was measured with other values of a parameter the table's server implies (InnoDB's buffer pool).
 */
import { describe, expect, it } from 'vitest';
import { lookupAnswer, type AnswerQuestion, type AnswersRead } from './answers.ts';

const CLASS = '2 cores / 24 GB / NVMe-like';

function group(rows: number, bufferPoolMb: number, runCount: number): AnswersRead['groups'][number] {
  return {
    group: {
      key: `innodb/${CLASS}/rows=${rows}/bp=${bufferPoolMb}`,
      source: 'measured',
      engine: { engine: 'mariadb', major: 10 },
      hardware: { class: CLASS, physicalCores: 2, memoryGb: 24, storageKind: 'nvme' },
      params: { rows, buffer_pool_mb: bufferPoolMb, threads: 8 },
      runCount,
    },
    pairs: [
      {
        baseline: 'uncompressed',
        candidate: 'compressed-kbs4',
        advice: `bp ${bufferPoolMb}`,
        measured: { improvement: -0.4, ci95: { low: -0.6, high: -0.2 } },
      },
    ],
  };
}

function atScaleGroup(bufferPoolMb: number, runs: number): NonNullable<AnswersRead['atScale']>['groups'][number] {
  return {
    hardwareClass: CLASS,
    engine: 'mariadb',
    major: 10,
    params: { buffer_pool_mb: bufferPoolMb, threads: 8 },
    runs,
    pairs: [
      {
        baseline: 'uncompressed',
        candidate: 'compressed-kbs4',
        status: 'answered',
        sentence: `fitted at bp ${bufferPoolMb}`,
        ratio: 0.5,
        ci95: { low: 0.4, high: 0.6 },
        pi95: { low: 0.2, high: 1.1 },
      },
    ],
  };
}

const answers = (groups: AnswersRead['groups'], at: NonNullable<AnswersRead['atScale']>['groups']): AnswersRead => ({
  groups,
  atScale: { groups: at },
});

const question = (bufferPoolMb: number): AnswerQuestion => ({
  scenario: 'innodb-compression-insert',
  engine: 'mariadb',
  major: 10,
  param: 'rows',
  value: 400_000,
  hardware: { cores: 2, memoryGb: 24, storage: 'nvme' },
  declaredScale: true,
  params: { buffer_pool_mb: bufferPoolMb },
});

describe('advise: the answer for a table', () => {
  // The 16 MiB groups have more runs and a scale nearer 400,000: only the buffer pool can choose the 128 MiB one.
  const measured = answers(
    [group(350_000, 16, 3), group(700_000, 16, 3), group(1_400_000, 128, 1)],
    [atScaleGroup(16, 12), atScaleGroup(128, 1)],
  );

  it('prefers the group measured at the server’s own buffer pool, and its fitted answer', () => {
    const a = lookupAnswer(measured, question(128));
    expect(a.status).toBe('answered');
    if (a.status !== 'answered') return;
    expect(a.measuredAt).toBe(1_400_000);
    expect(a.differs).toEqual([]);
    expect(a.pairs[0]!.advice).toBe('bp 128');
    expect(a.atScale.map((p) => p.sentence)).toEqual(['fitted at bp 128']);
    expect(a.sentence).not.toMatch(/not at your settings/);
  });

  it('says which parameter differs when no group was measured at the server’s value', () => {
    const a = lookupAnswer(measured, question(512));
    expect(a.status).toBe('answered');
    if (a.status !== 'answered') return;
    expect(a.measuredAt).toBe(350_000);
    expect(a.differs).toEqual(['buffer_pool_mb = 16, yours 512']);
    expect(a.sentence).toMatch(/; measured with buffer_pool_mb = 16, yours 512: not at your settings$/);
    // The fitted answer is over the same runs as the group answered.
    expect(a.atScale.map((p) => p.sentence)).toEqual(['fitted at bp 16']);
  });
});
