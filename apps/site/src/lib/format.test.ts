import { describe, expect, it } from 'vitest';
import { formatDuration, formatInterval, formatPctInterval, formatValue, formatWithUnit } from './format.ts';
import { meansText } from './home.ts';
import { sideValue } from './side-by-side.ts';
import { firstRunCommand, reproduceCommand, reproduceNote, toCsv } from './views.ts';
import { RunDetail } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';

describe('formatDuration', () => {
  it('writes h:mm:ss like the article (226.4 s → 0:03:46, 141.4 s → 0:02:21)', () => {
    expect(formatDuration(226.4, 'hms')).toBe('0:03:46');
    expect(formatDuration(141.4, 'hms')).toBe('0:02:21');
    expect(formatDuration(836, 'hms')).toBe('0:13:56');
    expect(formatDuration(3725, 'hms')).toBe('1:02:05');
  });
  it('keeps hundredths below a minute so short measured runs stay readable', () => {
    expect(formatDuration(4.368, 'hms')).toBe('0:00:04.37');
    expect(formatDuration(14.5, 'hms')).toBe('0:00:14.50');
  });
  it('writes milliseconds for articles that reported them', () => {
    expect(formatDuration(48.011511, 'ms')).toBe('48,011.511');
    expect(formatDuration(2.004654, 'ms')).toBe('2,004.654');
    expect(formatDuration(73.471, 'ms')).toBe('73,471');
  });
});

describe('a value with its unit (one formatter)', () => {
  it("names the unit the figure is written in: ms after a figure in ms, never the metric's s", () => {
    expect(formatWithUnit(0.342316, 's', 'ms')).toBe('342.316 ms');
    expect(formatWithUnit(0.342316, 's', 's')).toBe('0.3423 s');
    expect(formatWithUnit(226.4, 's', 'hms')).toBe('0:03:46');
    expect(formatWithUnit(3 * 1024 * 1024, 'bytes', 's')).toBe('3.0 MiB');
    expect(formatWithUnit(52274.2, 'rows/s', 's')).toBe('52,274 rows/s');
    expect(formatWithUnit(Number.NaN, 's', 'ms')).toBe('—');
  });
  it('the home page\'s figures and the side-by-side means go through it (a 1000x slip: "342.316 s" for 0.342 s)', () => {
    const g = {
      unit: 's',
      variants: [
        { variant: 'full-rewrite', mean: 0.342316 },
        { variant: 'vacuum', mean: 0.566388 },
      ],
    } as Parameters<typeof meansText>[0];
    expect(meansText(g, { baseline: 'full-rewrite', candidate: 'vacuum' }, 'ms')).toBe(
      '342.316 ms for full-rewrite vs 566.388 ms for vacuum',
    );
    expect(sideValue(2 * 1024 * 1024, 'bytes')).toBe('2.0 MiB');
    expect(sideValue(0.5, 's')).toBe('0.5000 s');
    expect(sideValue(null, 's')).toBe('—');
  });
});

describe('intervals', () => {
  it('prints an interval with an unbounded end as the verdict sentences do: "unbounded"', () => {
    expect(formatPctInterval({ low: 0.234, high: null })).toBe('unbounded');
    expect(formatPctInterval({ low: null, high: null })).toBe('unbounded');
    expect(formatPctInterval({ low: 0.234, high: 0.516 })).toBe('23.4% to 51.6%');
    expect(formatInterval({ low: null, high: 3 }, 's', 's')).toBe('unbounded');
    expect(formatInterval({ low: 2.5, high: 3 }, 's', 's')).toBe('2.500 – 3.000');
  });
});

describe('reproduceCommand', () => {
  const base = {
    id: '00000000-0000-4000-8000-000000000001',
    source: 'measured',
    status: 'stored',
    scenario: { key: 'vacuum-index-cleanup', version: 'a'.repeat(64) },
    hardware: { fingerprint: 'b'.repeat(64), class: '2 cores / 24 GB / SSD' },
    database: { engine: 'postgresql', version: '15.19', major: 15, minor: 19 },
    runner: null,
    runnerVersion: '0.1.0',
    startedAt: '2026-11-22T03:00:00.000Z',
    finishedAt: '2026-11-22T03:01:00.000Z',
    receivedAt: '2026-11-22T03:01:00.000Z',
    links: { self: '/v1/runs/x' },
    hardwareSpec: {
      cpuModel: 'x',
      physicalCores: 2,
      logicalCpus: 2,
      memoryBytes: 1,
      storage: { kind: 'ssd', model: null },
      filesystem: null,
      os: 'x',
      kernel: 'x',
      virtualization: null,
    },
    databaseEnvironment: { engine: 'postgresql', version: '15.19', major: 15, minor: 19, settings: {} },
    timeSeries: [],
    notes: [],
    warnings: [],
    order: null,
  };
  it('repeats the scenario, repetitions and parameters; quotes what the shell would split', () => {
    const run = RunDetail.parse({
      ...base,
      params: { rows: 200000, mode: 'a b', 'published.title': 'skipped' },
      samples: [1, 2, 3].map((repetition) => ({ variant: '1-1', repetition, metric: 'duration', unit: 's', value: 1 })),
    });
    expect(reproduceCommand(run)).toBe(
      "tunelab run vacuum-index-cleanup --param 'mode=a b' --param rows=200000 --target postgres://USER@HOST:5432/DBNAME --repetitions 3",
    );
  });
  it('says what to replace only when the command names an example target; a managed cluster takes none', async () => {
    const samples = [1, 2].map((repetition) => ({
      variant: '1-1',
      repetition,
      metric: 'duration',
      unit: 's',
      value: 1,
    }));
    const onTarget = RunDetail.parse({ ...base, params: {}, samples });
    expect(reproduceNote(onTarget, reproduceCommand(onTarget))).toMatch(
      /^Replace postgres:\/\/USER@HOST:5432\/DBNAME with a PostgreSQL server you can spare/,
    );
    const onServer = RunDetail.parse({
      ...base,
      params: {},
      samples,
      options: { repetitions: 2, scale: 'default', server: 17 },
    });
    const command = reproduceCommand(onServer);
    expect(command).toBe('tunelab run vacuum-index-cleanup --server 17 --repetitions 2');
    expect(reproduceNote(onServer, command)).toMatch(/^The runner installs PostgreSQL 17 on first use/);
    const recovery = (await loadScenario(`${DEFAULT_SCENARIOS_DIR}recovery-init-sync`)).doc;
    const managed = RunDetail.parse({
      ...base,
      scenario: { ...base.scenario, key: 'recovery-init-sync' },
      params: {},
      samples,
    });
    expect(reproduceCommand(managed, recovery)).toBe('tunelab run recovery-init-sync --repetitions 2');
    expect(reproduceNote(managed, reproduceCommand(managed, recovery))).toMatch(
      /^The runner creates the throwaway server/,
    );
  });
});

describe('firstRunCommand', () => {
  it('a throwaway server of the newest managed major; the example target for MariaDB; nothing for a managed cluster', async () => {
    const load = async (key: string) => (await loadScenario(`${DEFAULT_SCENARIOS_DIR}${key}`)).doc;
    expect(firstRunCommand('vacuum-full-rewrite', await load('vacuum-full-rewrite'))).toBe(
      'tunelab run vacuum-full-rewrite --server 18',
    );
    expect(firstRunCommand('innodb-compression-insert', await load('innodb-compression-insert'))).toBe(
      'tunelab run innodb-compression-insert --target mysql://USER@HOST:3306/DBNAME',
    );
    expect(firstRunCommand('recovery-init-sync', await load('recovery-init-sync'))).toBe(
      'tunelab run recovery-init-sync',
    );
  });
});

describe('toCsv', () => {
  it('quotes commas, quotes and newlines (RFC 4180)', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          [null, 2],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n,2\r\n');
  });
});

describe('numbers for people', () => {
  it('groups digits instead of writing exponents', () => {
    expect(formatValue(44120.5, 'rows/s', 's')).toBe('44,121');
    expect(formatValue(1234.5678, 'MB', 's')).toBe('1,235');
    expect(formatValue(12.34567, 'MB', 's')).toBe('12.35');
    expect(formatValue(0.000123456, '%', 's')).toBe('0.000123');
    for (const v of [44120.5, 1.5e5, 9.99e-5, 123.456]) expect(formatValue(v, 'x', 's')).not.toMatch(/e[+-]/);
  });
});
