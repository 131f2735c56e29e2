import { describe, expect, it } from 'vitest';
import { labelsOf } from './load.ts';

// Found by the POST /v1/runs property test: a run of a known scenario with a variant
// named `hasOwnProperty` made the scenario page render Object.prototype.hasOwnProperty as its
// label, which Astro called: "Cannot convert undefined or null to object", site build exit 1.
describe('variant labels', () => {
  it.each(['hasOwnProperty', 'constructor', 'toString', 'valueOf', '__proto__'])(
    'a variant named %s has no label',
    (name) => {
      const labels = labelsOf([{ key: '1-1', label: 'INDEX_CLEANUP on' }]);
      expect(labels[name]).toBeUndefined();
      expect(labels['1-1']).toBe('INDEX_CLEANUP on');
    },
  );
});
