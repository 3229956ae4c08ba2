import { describe, expect, it } from 'vitest';
import { gradeProblem } from './arithmetic.js';
import { splitProblems } from './arithmetic-split.js';

describe('splitProblems', () => {
  it.each<[string, string[]]>([
    ['23+45=68 7×8=56 30+( )=50', ['23+45=68', '7×8=56', '30+( )=50']],
    ['23+45=68', ['23+45=68']],
    // Wide gaps always separate.
    ['23+45=68    7×8=56', ['23+45=68', '7×8=56']],
    ['23+45=68\u30007×8=56', ['23+45=68', '7×8=56']],
    ['23+45=68\t7×8=56', ['23+45=68', '7×8=56']],
    // Spaces around every sign, as OCR of print often gives.
    ['23 + 45 = 68 7 × 8 = 56', ['23 + 45 = 68', '7 × 8 = 56']],
    // Punctuation between problems stays with the one before it.
    ['23+45=68，7×8=56', ['23+45=68，', '7×8=56']],
    ['23+45=68; 7×8=56', ['23+45=68;', '7×8=56']],
    // Spaces lost: the one place where the first problem comes out right.
    ['23+45=687×8=56', ['23+45=68', '7×8=56']],
    ['23+45=687x8=56', ['23+45=68', '7x8=56']],
    ['17÷5=3……27×8=56', ['17÷5=3……2', '7×8=56']],
    ['9+9=1836÷6=6', ['9+9=18', '36÷6=6']],
    // …and no cut when no place (or more than one) does: the merged piece stays ambiguous.
    ['23+45=567×8=56', ['23+45=567×8=56']],
    ['1+0=100+1=1', ['1+0=100+1=1']],
    // …nor at a bracket after the operator whose digits could not be cut ("3×" is not lost).
    ['10+5+28=303x(22-6)=48', ['10+5+28=303x(22-6)=48']],
    ['10+5+28=433x(22-6)=48', ['10+5+28=43', '3x(22-6)=48']],
    // Answers that end in a remainder, a blank, a unit.
    ['17÷5=3 ……2 7×8=56', ['17÷5=3 ……2', '7×8=56']],
    ['30+()=50 7×8=56', ['30+()=50', '7×8=56']],
    ['23+45=68 (30)+20=50', ['23+45=68', '(30)+20=50']],
    ['5元+3元=8元 7×8=56', ['5元+3元=8元', '7×8=56']],
    // Nothing written, but the next problem is plainly a problem.
    ['23+45= 7×8=56', ['23+45=', '7×8=56']],
    // A bare '=' comparison is not cut apart.
    ['3+4= 2+5', ['3+4= 2+5']],
    // Comparisons end at a space before the next problem.
    ['45>54 3+4○8', ['45>54', '3+4○8']],
    ['45 > 54 3 + 4 ○ 8', ['45 > 54', '3 + 4 ○ 8']],
    ['8>3+4 5+2=7', ['8>3+4', '5+2=7']],
    ['23+45=68 45○54', ['23+45=68', '45○54']],
    // Item numbers go with their problem.
    ['(1)23+45=68 (2)7×8=56', ['(1)23+45=68', '(2)7×8=56']],
    ['1、23+45=68 2、7×8=56', ['1、23+45=68', '2、7×8=56']],
    ['①23+45=68 ②7×8=56', ['①23+45=68', '②7×8=56']],
    // Not arithmetic: one piece.
    ['看拼音写词语', ['看拼音写词语']],
    ['  ', ['']],
  ])('%j → %j', (line, expected) => {
    expect(splitProblems(line)).toEqual(expected);
  });

  it('pieces cover every non-space character of the line, in order', () => {
    for (const line of ['23+45=68，7×8=56 30+( )=50', '①23+45=68 ②7×8=56', '23 + 45 = 68 7 × 8 = 56', '17÷5=3……27×8=56', '45>54；3+4○8']) {
      expect(splitProblems(line).join('').replace(/\s+/g, '')).toBe(line.replace(/\s+/g, ''));
    }
  });

  it('each piece grades on its own, with its look-alikes still seen', () => {
    const [a, b, c] = splitProblems('23+45=68 7x8=56 30+( )=50');
    expect(gradeProblem({ text: a as string, confidence: 0.95 }).verdict).toBe('correct');
    expect(gradeProblem({ text: b as string, confidence: 0.95 })).toMatchObject({ verdict: 'correct', confidence: 0.9 });
    expect(gradeProblem({ text: c as string, confidence: 0.95 })).toMatchObject({ verdict: 'uncertain', reason: 'blank_maybe_unread' }) // an empty bracket is never called blank;
  });
});
