import { describe, expect, it } from 'vitest';
import { seededRandom } from '@tunelab/stats';
import { repeatedKey } from '../src/plugins/app/repeated-keys.ts';
import { FIXTURE } from './helpers.ts';

const check = (text: string) => repeatedKey(text, JSON.parse(text));

describe('repeatedKey', () => {
  it.each([
    ['{}'],
    ['[]'],
    ['"a"'],
    ['{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}'],
    // Strings that look like members: a colon inside, an escaped quote, a trailing backslash.
    ['{"a":"x\\":1,\\"a\\":","b":"\\\\","c":"\\\\\\"a\\":"}'],
    ['["a", "a" , {"a" : "a"}]'],
    ['{ "a"\n\t:\r 1 , "b" : [ "c" , "d" ] }'],
    ['{"\\u0061":1,"b":2}'],
    ['{"a":{"b":{"c":{"d":[[[{"e":null}]]]}}}}'],
  ])('no repeated key in %s', (text) => {
    expect(check(text)).toBeUndefined();
  });

  it.each([
    ['{"a":1,"a":2}', '/a'],
    ['{"a":1,"\\u0061":2}', '/a'],
    ['{"a":1,"b":{"c":1,"d":"\\"c\\":","c":2}}', '/b/c'],
    ['{"x":[{"a":1},{"b":1,"b":2}]}', '/x/1/b'],
    ['{"s/t~":{"k":1,"k":1}}', '/s~1t~0/k'],
    ['{"a" : 1 ,\n "a"\t: 1}', '/a'],
  ])('%s repeats %s', (text, path) => {
    expect(check(text)).toBe(path);
  });

  it('finds a repetition nested deeper than the tokenizer can name it', () => {
    const depth = 200_000;
    const text = `${'['.repeat(depth)}{"a":1,"a":2}${']'.repeat(depth)}`;
    expect(check(text)).toBe('/');
    expect(check(`${'['.repeat(depth)}{"a":1}${']'.repeat(depth)}`)).toBeUndefined();
  });

  it('agrees with a key-by-key check on generated documents, with and without a repeated key', () => {
    const r = seededRandom(43);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
    const names = ['a', 'b', 'c', 'a"b', 'a\\', 'x:y', ' ', 'é', '\u2028'];
    const gen = (depth: number): string => {
      const k = r();
      if (depth > 3 || k < 0.3) return JSON.stringify(pick([1, -2.5e-3, 'v', 'q"":', null, true, '\\', '{"a":1}']));
      if (k < 0.6) return `[${Array.from({ length: Math.floor(r() * 4) }, () => gen(depth + 1)).join(' , ')}]`;
      const keys = [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => pick(names)))];
      return `{${keys.map((key) => `${JSON.stringify(key)}${pick(['', ' ', '\n'])}:${gen(depth + 1)}`).join(',')}}`;
    };
    for (let i = 0; i < 500; i++) {
      const text = gen(0);
      expect(check(text), text).toBeUndefined();
      const repeated = text.replace(/\{("(?:[^"\\]|\\.)*")\s*:/, '{$1:0,$1:');
      if (repeated !== text) expect(check(repeated), repeated).toMatch(/^\//);
    }
  });

  it('passes the test fixture and refuses it with one key repeated', () => {
    const text = JSON.stringify(FIXTURE);
    expect(check(text)).toBeUndefined();
    expect(check(text.replace('"os":', '"os":"x","os":'))).toBe('/hardware/os');
  });
});
