import { describe, expect, it } from 'vitest';
import { compareMajors, compareServers, groupServer, rowServer, serverLabel, serversText } from './servers.ts';

const mariadb = (minor: number) => ({
  key: `g-mariadb-10.${minor}`,
  engine: { engine: 'mariadb' as const, major: 10 },
  databaseVersions: [{ engine: 'mariadb' as const, version: `10.${minor}.19-MariaDB`, major: 10, minor, runs: 1 }],
});
const postgres = (major: number) => ({
  key: `g-pg-${major}`,
  engine: { engine: 'postgresql' as const, major },
  databaseVersions: [{ engine: 'postgresql' as const, version: `${major}.4`, major, minor: 4, runs: 1 }],
});

describe('servers as people name them', () => {
  it('names a MariaDB 10.11 group by its release line, not its first number', () => {
    expect(serverLabel(groupServer(mariadb(11)))).toBe('MariaDB 10.11');
    expect(serverLabel(groupServer(postgres(17)))).toBe('PostgreSQL 17');
    expect(groupServer(mariadb(6))).not.toEqual(groupServer(mariadb(11)));
  });

  it('orders release lines number by number (10.6 before 10.11), PostgreSQL first', () => {
    expect(['10.11', '10.6', '9', '10'].sort(compareMajors)).toEqual(['9', '10', '10.6', '10.11']);
    const servers = [
      groupServer(mariadb(11)),
      groupServer(postgres(17)),
      groupServer(mariadb(6)),
      groupServer(postgres(14)),
    ];
    expect(servers.sort(compareServers).map(serverLabel)).toEqual([
      'PostgreSQL 14',
      'PostgreSQL 17',
      'MariaDB 10.6',
      'MariaDB 10.11',
    ]);
    expect(serversText(servers)).toBe('PostgreSQL 14 and 17; MariaDB 10.6 and 10.11');
  });

  it('names a versions row by its group, or by its server build without one', () => {
    const row = {
      engine: 'mariadb' as const,
      major: 10,
      group: 'g-mariadb-10.11',
      serverVersions: ['10.11.19-MariaDB'],
    };
    expect(serverLabel(rowServer(row, [{ group: mariadb(11) }]))).toBe('MariaDB 10.11');
    expect(serverLabel(rowServer(row, []))).toBe('MariaDB 10.11');
  });
});
