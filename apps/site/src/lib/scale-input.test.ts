import { describe, expect, it } from 'vitest';
import { parseScaleInput } from './scale-input.ts';

describe('a size as a reader types it', () => {
  it.each([
    ['40000000', 40_000_000],
    ['40,000,000', 40_000_000],
    [' 40 000 000 ', 40_000_000],
    ['40M', 40_000_000],
    ['1.5m', 1_500_000],
    ['250k', 250_000],
    ['1e6', 1_000_000],
    ['+7', 7],
  ])('reads %j as %d', (text, value) => {
    expect(parseScaleInput(text, 'rows')).toEqual({ ok: true, value });
  });

  it.each([
    ['', /^Type a number of rows/],
    ['   ', /^Type a number of rows/],
    ['-5', /^A number of rows is at least 1\.$/],
    ['0', /^A number of rows is at least 1\.$/],
    ['lots', /^“lots” is not a number of rows: type digits/],
    ['12 tables', /^“12 tables” is not a number of rows/],
    ['1.5', /^A number of rows is a whole number \(1\.5 is not\)\.$/],
    ['1e400', /too large/],
  ])('refuses %j with a sentence', (text, message) => {
    const r = parseScaleInput(text, 'rows');
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.message).toMatch(message);
  });
});
