import { describe, expect, it } from 'vitest';
import { engineDefault, normalizeSetting } from './settings.ts';

// Found by the POST /v1/runs property test: a run with a setting named `constructor`
// made the site build exit 1 ("value.trim is not a function"): the defaults table answered
// Object.prototype.constructor for it.
describe('names that are properties of every object', () => {
  it.each(['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty'])(
    'setting %s has no engine default',
    (name) => {
      expect(engineDefault('postgresql', name)).toBeNull();
      expect(engineDefault('mariadb', name)).toBeNull();
      expect(engineDefault(name, 'shared_buffers')).toBeNull();
    },
  );

  it('normalises values with such a unit as words, and known ones as before', () => {
    expect(normalizeSetting('5 constructor')).toBe('5 constructor');
    expect(normalizeSetting('8GB')).toBe(normalizeSetting('8192MB'));
    expect(engineDefault('postgresql', 'fillfactor') ?? engineDefault('postgresql', 'shared_buffers')).toEqual(
      expect.any(String),
    );
  });
});
