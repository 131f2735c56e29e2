import { describe, expect, it } from 'vitest';
import { ENGINE_FACTS, Engine, engineOfScheme, majorOf, majorOfParts } from './index.ts';

describe('engine facts', () => {
  it.each([
    ['postgresql', 'PostgreSQL 17.10 (Debian 17.10-1.pgdg120+1) on x86_64-pc-linux-gnu', '17'],
    ['postgresql', '15.19', '15'],
    ['mariadb', '10.11.9-MariaDB-0+deb12u1', '10.11'],
    ['mariadb', '10.6.18-MariaDB', '10.6'],
    ['mysql', '8.0.36', '8.0'],
    ['mysql', '8.4.2', '8.4'],
  ] as const)('%s %s → major %s', (engine, version, major) => {
    expect(majorOf(engine, version)).toBe(major);
  });

  it('maps the two numbers stored with a run the same way (MariaDB runs stored as major 10 keep working)', () => {
    expect(majorOfParts('mariadb', { major: 10, minor: 11 })).toBe('10.11');
    expect(majorOfParts('mariadb', { major: 10, minor: 6 })).not.toBe(
      majorOfParts('mariadb', { major: 10, minor: 11 }),
    );
    expect(majorOfParts('postgresql', { major: 16, minor: 4 })).toBe('16');
  });

  it('has no major without x.y', () => {
    expect(majorOf('postgresql', 'unknown')).toBeNull();
  });

  it('names every engine of the Engine enum and finds it by URL scheme', () => {
    expect(Engine.options).toEqual(Object.keys(ENGINE_FACTS));
    expect(engineOfScheme('postgres:')).toBe('postgresql');
    expect(engineOfScheme('mariadb:')).toBe('mariadb');
    expect(engineOfScheme('http:')).toBeNull();
  });
});
