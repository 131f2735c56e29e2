import { describe, expect, it } from 'vitest';
import { printable } from './terminal.ts';

describe('printable: what reaches a terminal from outside is shown, never obeyed', () => {
  it('writes control characters, DEL, C1 and bidi overrides as visible escapes', () => {
    expect(printable('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(printable('x\u001b]52;c;aGk=\u0007y')).toBe('x\\x1b]52;c;aGk=\\x07y');
    expect(printable('one\r\ntwo\bthree\u007f')).toBe('one\\r\\ntwo\\x08three\\x7f');
    expect(printable('\u009b31m')).toBe('\\x9b31m');
    expect(printable('abc\u202egnp.exe\u2066\u200f')).toBe('abc\\u202egnp.exe\\u2066\\u200f');
  });
  it('leaves text as it is: letters of every script, the tab, TuneLab’s own punctuation', () => {
    const text = 'public.orders: 8,000 dead tuples (50%) — 1-2 vs 1-1: −5.0% … 95% CI\tnaïve 表 ×0.44';
    expect(printable(text)).toBe(text);
  });
});
