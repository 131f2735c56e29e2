/**
 * `lookupAnswer` (advise's one reading of GET /v1/answers) over answers shaped as the API sends
 * them, cut to the fields it reads: which group answers a table, and what it says when that group
 * was measured with other values of a parameter the table's server implies (InnoDB's buffer pool).
 */
import { describe, expect, it } from 'vitest';
import { lookupAnswer, machineParams, type AnswerQuestion, type AnswersRead } from './answers.ts';

const CLASS = '2 cores / 24 GB / NVMe-like';

function group(
  rows: number,
  bufferPoolMb: number,
  runCount: number,
  hardwareClass = CLASS,
  similarity: AnswersRead['groups'][number]['similarity'] = { like: true, distance: 0, sameStorage: true },
): AnswersRead['groups'][number] {
  return {
    similarity,
    group: {
      key: `innodb/${hardwareClass}/rows=${rows}/bp=${bufferPoolMb}`,
      source: 'measured',
      engine: { engine: 'mariadb', major: 10 },
      hardware: { class: hardwareClass },
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

  it('takes the class the API ranked nearest among those it calls like the machine, never its own ranking', () => {
    // The API sends the groups nearest first: an unlike class (other storage) before the like one.
    const ranked = answers(
      [
        group(400_000, 128, 9, '2 cores / 24 GB / HDD-like', { like: false, distance: 0, sameStorage: false }),
        group(350_000, 128, 1, '4 cores / 16 GB / NVMe-like', { like: true, distance: 0.6, sameStorage: true }),
        group(350_000, 128, 1, CLASS, { like: true, distance: 0.9, sameStorage: true }),
      ],
      [],
    );
    const a = lookupAnswer(ranked, question(128));
    expect(a.status === 'answered' && a.hardwareClass).toBe('4 cores / 16 GB / NVMe-like');
  });

  it('no class like the machine: not measured near it, naming the nearest and how far it is', () => {
    const far = answers([group(400_000, 128, 3, CLASS, { like: false, distance: 2.345, sameStorage: false })], []);
    expect(lookupAnswer(far, question(128))).toEqual({
      status: 'not-measured',
      sentence: `not measured near your hardware on MariaDB 10 (nearest: ${CLASS}, 2.35 doublings per figure away on other storage)`,
    });
  });

  it('asks the API with the machine as GET /v1/similar names it: cores, memory, storage and the probe figures', () => {
    expect(machineParams({ cores: 2, memoryGb: 24, storage: 'unknown' })).toEqual({
      cores: '2',
      memoryGb: '24',
      machineStorage: 'unknown',
    });
    expect(
      machineParams({
        cores: 2,
        memoryGb: 24,
        storage: 'unknown',
        figures: {
          fsyncP50Us: 130.5,
          readIopsQd1: 11000,
          readIopsQd16: null,
          seqWriteMBps: 1268,
          cpuScore: 840,
          cpuWorkload: 'sha256-64k/node24',
        },
      }),
    ).toEqual({
      cores: '2',
      memoryGb: '24',
      machineStorage: 'unknown',
      fsyncP50Us: '130.5',
      readIopsQd1: '11000',
      seqWriteMBps: '1268',
      cpuScore: '840',
      cpuWorkload: 'sha256-64k/node24',
    });
  });
});
