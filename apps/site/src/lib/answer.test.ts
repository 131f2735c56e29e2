/**
 * The verdict matrix's word for a pair says what its verdict decided: a difference either way, a
 * decided equivalence, a pair too noisy to decide (unstable) or one not decided yet, never one
 * word ("no sure difference") for an equivalence and an undecided pair alike.
 */
import { describe, expect, it } from 'vitest';
import { cellWord, type CellPair } from './answer.ts';

type Kind = 'faster' | 'slower' | 'no-significant-difference' | 'insufficient-data' | 'descriptive';
const pair = (
  kind: Kind,
  conclusive: boolean,
  decision?: 'differs' | 'equivalent' | 'undecided' | 'unstable',
): CellPair => ({ measured: { verdict: { kind, conclusive }, ...(decision ? { paired: { decision } } : {}) } });

describe('the matrix word of a pair', () => {
  it('names each decision', () => {
    expect(cellWord(pair('faster', true, 'differs'))).toEqual({ word: 'better', kind: 'better' });
    expect(cellWord(pair('slower', true, 'differs'))).toEqual({ word: 'worse', kind: 'worse' });
    expect(cellWord(pair('no-significant-difference', true, 'equivalent'))).toEqual({
      word: 'equivalent',
      kind: 'none',
    });
    expect(cellWord(pair('no-significant-difference', false, 'unstable'))).toEqual({ word: 'unstable', kind: 'none' });
    expect(cellWord(pair('no-significant-difference', false, 'undecided'))).toEqual({
      word: 'undecided',
      kind: 'none',
    });
    // Runs without blocks: Welch's verdict within the margin is an equivalence, else undecided.
    expect(cellWord(pair('no-significant-difference', true)).word).toBe('equivalent');
    expect(cellWord(pair('no-significant-difference', false)).word).toBe('undecided');
    expect(cellWord(pair('insufficient-data', false)).word).toBe('too few runs');
    expect(cellWord({ measured: null }).word).toBe('too few runs');
  });
});
