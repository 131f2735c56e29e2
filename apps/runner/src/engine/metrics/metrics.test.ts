import { describe, expect, it } from 'vitest';
import { MetricDef } from '@tunelab/contracts';
import { WAL_RECORD } from '../actions/timed.ts';
import { metricNeeds, metricValue, type Observed } from './index.ts';

const empty: Observed = { sizes: {}, tableStats: {}, tupleStats: {} };
const data = (recorded: Record<string, number>, before = empty, after = empty) => ({
  recorded: new Map(Object.entries(recorded)),
  before,
  after,
});

describe('metric sources', () => {
  it('recorded: takes what an action recorded, under its key or `from`', () => {
    const tpm = MetricDef.parse({ key: 'tpm', source: 'recorded', unit: 'tx/min', better: 'higher' });
    const nopm = MetricDef.parse({
      key: 'nopm',
      source: 'recorded',
      from: 'new_orders_per_minute',
      unit: 'tx/min',
      better: 'higher',
    });
    const d = data({ tpm: 1200, new_orders_per_minute: 540 });
    expect(metricValue(tpm, d)).toBe(1200);
    expect(metricValue(nopm, d)).toBe(540);
    expect(metricValue(tpm, data({}))).toBeNull();
  });

  it('timed and wal read the timed block, in their units', () => {
    const ms = MetricDef.parse({ key: 'duration', source: 'timed', unit: 'ms', better: 'lower' });
    const wal = MetricDef.parse({ key: 'wal', source: 'wal', unit: 'MB', better: 'lower' });
    const d = data({ duration: 1.5, [WAL_RECORD]: 3 * 1024 * 1024 });
    expect(metricValue(ms, d)).toBe(1500);
    expect(metricValue(wal, d)).toBe(3);
  });

  it('relation figures come from the before/after observations; needs are gathered from the sources', () => {
    const dead = MetricDef.parse({
      key: 'dead',
      source: 'tuple_stat',
      relation: 't',
      field: 'dead_tuple_count',
      at: 'before',
      unit: 'tuples',
      better: 'lower',
    });
    const upd = MetricDef.parse({
      key: 'upd',
      source: 'table_stat',
      relation: 'u',
      counter: 'n_tup_upd',
      at: 'delta',
      unit: 'rows',
      better: 'lower',
    });
    const before: Observed = {
      sizes: {},
      tableStats: { u: { n_tup_upd: 10 } },
      tupleStats: {
        t: { tuple_count: 0, dead_tuple_count: 7, tuple_len: 0, dead_tuple_len: 0, free_space: 0, table_len: 0 },
      },
    };
    const after: Observed = { ...before, tableStats: { u: { n_tup_upd: 25 } } };
    expect(metricValue(dead, data({}, before, after))).toBe(7);
    expect(metricValue(upd, data({}, before, after))).toBe(15);
    expect(metricNeeds([dead, upd])).toEqual({ relations: ['t', 'u'], tupleStats: true, extensions: ['pgstattuple'] });
  });
});
