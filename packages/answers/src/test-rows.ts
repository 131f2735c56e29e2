/**
 * For tests: one sample row as results-db loads it (groups.ts' `SampleRow`) — a sample of 1 s of
 * variant `a` in a measured PostgreSQL 17.2 run on a 2-core machine — with the fields a test sets.
 */
import type { SampleRow } from './groups.ts';

const TEST_ROW: SampleRow = {
  variant: 'a',
  point_param: null,
  point_value: null,
  repetition: 1,
  value: 1,
  unit: 's',
  run_id: '00000000-0000-4000-8000-000000000001',
  scenario_key: 'test',
  version_hash: 'a'.repeat(64),
  comparisons: null,
  fingerprint: 'b'.repeat(64),
  hardware_class: '2 cores',
  cpu_model: 'cpu',
  storage_kind: 'ssd',
  physical_cores: 2,
  memory_bytes: 2 * 1024 ** 3,
  source: 'measured',
  received_at: new Date('2026-01-01T00:00:00Z'),
  engine: 'postgresql',
  db_version: '17.2',
  major: 17,
  minor: 2,
  params: {},
  run_warnings: [],
  settings: {},
};

/** TEST_ROW with `fields` set. */
export const testRow = (fields: Partial<SampleRow>): SampleRow => ({ ...TEST_ROW, ...fields });
