import { describe, expect, it } from 'vitest';
import { unitFor } from './units.ts';

// Found by the POST /v1/runs property test: names that are properties of every object.
describe('names that are properties of every object', () => {
  it('a metric unit called constructor is shown as is', () => {
    const u = unitFor('constructor', [1, 2, 3]);
    expect(u.label).toBe('constructor');
    expect(u.format(2)).toMatch(/^2(\.0+)?$/);
  });
});
