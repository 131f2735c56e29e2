import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  hardwareClassOf,
  parseServerVersion,
  RunSubmission,
  stableHardwareFields,
  csvCell,
  toCsv,
} from './index.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

describe('RunSubmission', () => {
  it('accepts the sample submission', () => {
    expect(RunSubmission.safeParse(fixture).success).toBe(true);
  });

  it('rejects unknown keys with their path, and non-finite numbers', () => {
    const r = RunSubmission.safeParse({
      ...fixture,
      hardware: { ...fixture.hardware, gpu: 'x' },
      samples: [{ ...fixture.samples[0], value: Infinity }],
    });
    expect(r.success).toBe(false);
    const issues = r.error!.issues.map((i) => ({ path: i.path.join('.'), code: i.code }));
    expect(issues).toContainEqual({ path: 'hardware', code: 'unrecognized_keys' });
    expect(issues.some((i) => i.path === 'samples.0.value')).toBe(true);
  });

  it('keys samples by (variant, repetition, metric, sweep point)', () => {
    const s = { variant: 'a', repetition: 1, metric: 'tpm', unit: 'tx/min', value: 5 };
    const at = (value: number) => ({ ...s, point: { param: 'vus', value } });
    expect(RunSubmission.safeParse({ ...fixture, samples: [at(1), at(4), s] }).success).toBe(true);
    const dup = RunSubmission.safeParse({ ...fixture, samples: [at(1), at(4), at(4)] });
    expect(dup.success).toBe(false);
    expect(dup.error!.issues[0]!.message).toBe('duplicate sample for variant a, repetition 1, metric tpm, vus = 4');
    expect(
      RunSubmission.safeParse({ ...fixture, samples: [{ ...s, point: { param: 'v us', value: 1 } }] }).success,
    ).toBe(false);
  });

  it('refuses a repeated sample with or without a sweep point, and nothing else', () => {
    const s = { variant: 'a', repetition: 1, metric: 'tpm', unit: 'tx/min', value: 5 };
    const paths = (samples: object[]) =>
      (RunSubmission.safeParse({ ...fixture, samples }).error?.issues ?? []).map((i) => i.path.join('.'));
    expect(paths([s, { ...s, repetition: 2 }, { ...s, variant: 'b' }, { ...s, metric: 'tps' }])).toEqual([]);
    expect(paths([s, { ...s, repetition: 2 }, { ...s, value: 6 }])).toEqual(['samples.2']);
    // A point is part of the key; 0 and -0 are the same point.
    const at = (value: number) => ({ ...s, point: { param: 'vus', value } });
    expect(paths([s, at(1), { ...at(1), repetition: 2 }, { ...at(1), point: { param: 'rows', value: 1 } }])).toEqual(
      [],
    );
    expect(paths([at(0), s, at(-0)])).toEqual(['samples.2']);
  });
});

describe('RunSubmission options: a release of a managed server', () => {
  const withOptions = (options: Record<string, unknown>) =>
    RunSubmission.safeParse({ ...fixture, options: { repetitions: 1, scale: 'default', ...options } });
  it('records the release asked for next to its major', () => {
    expect(withOptions({ server: 17, serverRelease: '17.4' }).success).toBe(true);
    expect(withOptions({ server: 17 }).success).toBe(true);
  });
  it('refuses a release that is not MAJOR.MINOR, or not of options.server', () => {
    expect(withOptions({ server: 17, serverRelease: '17.4.1' }).error!.issues[0]!.path).toEqual([
      'options',
      'serverRelease',
    ]);
    const other = withOptions({ server: 16, serverRelease: '17.4' });
    expect(other.error!.issues[0]!.message).toBe(
      'is a release of PostgreSQL 17; options.server must be that major (it is 16)',
    );
    expect(withOptions({ serverRelease: '17.4' }).success).toBe(false);
  });
});

describe('hardware identity', () => {
  it('ignores clock speed and rounds memory to whole GiB', () => {
    const a = stableHardwareFields({ ...fixture.hardware, cpuSpeedGhz: 2.1, memoryBytes: 25769803776 });
    const b = stableHardwareFields({ ...fixture.hardware, cpuSpeedGhz: 3.9, memoryBytes: 25769803776 - 4096 });
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });

  it('names the coarse class the way engineers do', () => {
    expect(
      hardwareClassOf({ physicalCores: 8, memoryBytes: 32 * 1024 ** 3, storage: { kind: 'ssd', model: null } }),
    ).toBe('8 cores / 32 GB / SSD');
    expect(
      hardwareClassOf({ physicalCores: 2, memoryBytes: 4 * 1024 ** 3, storage: { kind: 'unknown', model: null } }),
    ).toBe('2 cores / 4 GB / unknown disk');
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined, x: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"z":1}]},"b":1}',
    );
  });

  it('gives JSON.stringify of the key-sorted value, also for objects whose keys share a first key and count', () => {
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
            )
          : v;
    const value = [
      { m: 1, b: 'x', a: [1.5, -0, 1e21, 2e-7, NaN, Infinity] },
      { m: 2, a: null, c: 'y\u0000"' },
      { m: 3, b: { z: true, é: false, A: 0 } },
      { m: 4, b: 'x', a: [] },
      {},
    ];
    for (let i = 0; i < 3; i++) expect(canonicalJson(value)).toBe(JSON.stringify(sorted(value)));
  });
});

describe('parseServerVersion', () => {
  it.each([
    ['PostgreSQL 15.19 (Debian 15.19-0+deb12u1) on x86_64-pc-linux-gnu', 15, 19],
    ['10.11.19-MariaDB-0+deb12u1', 10, 11],
    ['8.0.36', 8, 0],
  ])('%s → %i.%i', (v, major, minor) => {
    expect(parseServerVersion(v)).toEqual({ major, minor });
  });
  it('returns null for text without a version', () => {
    expect(parseServerVersion('unknown')).toBeNull();
  });
});

describe('toCsv', () => {
  it('neutralises cells a spreadsheet would evaluate (OWASP), quotes per RFC 4180, keeps numbers', () => {
    const csv = toCsv(
      ['a', 'b', 'c'],
      [
        ['=HYPERLINK("http://x","y")', '+1', '-2+3'],
        ['@SUM(A1)', '\tx', '\rx'],
        [-5, 1.5e-9, 'plain, text'],
        [null, undefined, true],
      ],
    );
    expect(csv.split('\r\n')).toEqual([
      'a,b,c',
      `"'=HYPERLINK(""http://x"",""y"")",'+1,'-2+3`,
      `'@SUM(A1),'\tx,"'\rx"`,
      '-5,1.5e-9,"plain, text"',
      ',,true',
      '',
    ]);
  });
});

describe('csvCell', () => {
  it('writes an integer as itself and any other number to 12 significant digits', () => {
    for (const v of [0, -0, 1, -5, 42, 999_999_999_999, -999_999_999_999, 1e12, 123_456_789_012_345, 2 ** 53])
      expect(csvCell(v), String(v)).toBe(String(Number(v.toPrecision(12))));
    expect(csvCell(45.663906000000004)).toBe('45.663906');
    expect(csvCell(1e21)).toBe('1e+21');
  });
});
