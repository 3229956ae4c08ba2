import { describe, expect, it } from 'vitest';
import { normaliseMath, normaliseMathDetailed } from './normalise.js';

const guesses = (text: string): string[] =>
  normaliseMathDetailed(text)
    .substitutions.filter((s) => s.guess)
    .map((s) => `${s.from}→${s.to}`);

describe('normaliseMath', () => {
  it.each([
    // Full width and spaces.
    ['２３＋４５＝６８', '23+45=68'],
    ['（３＋４）×２＝１４', '(3+4)×2=14'],
    [' 23 + 45 = 68 ', '23+45=68'],
    ['30＋（　）＝50', '30+()=50'],
    // Multiplication look-alikes between operands.
    ['7x8=56', '7×8=56'],
    ['7 X 8=56', '7×8=56'],
    ['7*8=56', '7×8=56'],
    ['7✕8=56', '7×8=56'],
    ['(2+3)x4=20', '(2+3)×4=20'],
    // Division look-alikes.
    ['56:7=8', '56÷7=8'],
    ['56∶7=8', '56÷7=8'],
    ['56：7=8', '56÷7=8'],
    // Minus look-alikes, only between operands.
    ['9—3=6', '9-3=6'],
    ['9−3=6', '9-3=6'],
    ['9一3=6', '9-3=6'],
    ['9ー3=6', '9-3=6'],
    ['3十5=8', '3+5=8'],
    // O and l next to digits.
    ['2O+3O=5O', '20+30=50'],
    ['1OO-1=99', '100-1=99'],
    ['l2+3=15', '12+3=15'],
    ['12+3=l5', '12+3=15'],
    ['I0-|=9', '10-1=9'],
    ['l+2=3', '1+2=3'],
    ['O.5+O.5=1', '0.5+0.5=1'],
    // The circle of a comparison.
    ['45O54', '45○54'],
    ['3+4O8', '3+4○8'],
    ['45〇54', '45○54'],
    ['45 ◯ 54', '45○54'],
    ['45＞54', '45>54'],
    ['45〉54', '45>54'],
    // Remainder marks.
    ['17÷5=3...2', '17÷5=3……2'],
    ['17÷5=3…2', '17÷5=3……2'],
    ['17÷5=3……2', '17÷5=3……2'],
    ['17÷5=3⋯⋯2', '17÷5=3……2'],
    ['17÷5=3..2', '17÷5=3……2'],
    // Decimal point and dropped punctuation.
    ['0.5+0.25=0.75', '0.5+0.25=0.75'],
    ['23+45=68。', '23+45=68'],
    ['23+45=68.', '23+45=68'],
    // Blanks.
    ['30+□=50', '30+()=50'],
    ['30+口=50', '30+()=50'],
    ['30+____=50', '30+()=50'],
    ['30+——=50', '30+()=50'],
    ['□+20=50', '()+20=50'],
    // Fractions and the division drill.
    ['1/5+2/5=3/5', '1/5+2/5=3/5'],
    ['56/7=8', '56÷7=8'],
    ['17/5=3...2', '17÷5=3……2'],
    ['1/2=', '1/2='],
    ['½+½=1', '1/2+1/2=1'],
    // '=' read as 二 when the problem has none.
    ['3+4二7', '3+4=7'],
    // Item numbers are not part of a problem.
    ['①23+45=68', '23+45=68'],
    // Not between operands: left alone for the parser to reject.
    ['小明有5个苹果', '小明有5个苹果'],
    ['x+3=5', 'x+3=5'],
    ['第一题', '第一题'],
    ['hello', 'hello'],
  ])('%s → %s', (raw, expected) => {
    expect(normaliseMath(raw)).toBe(expected);
  });

  it.each([
    ['7x8=56', ['x→×']],
    ['56:7=8', [':→÷']],
    ['2O+3O=5O', ['O→0', 'O→0', 'O→0']],
    ['l2+3=15', ['l→1']],
    ['45O54', ['O→○']],
    ['9一3=6', ['一→-']],
    ['56/7=8', ['/→÷']],
    ['3。5+1=4.5', ['。→']],
  ])('records the look-alikes it had to guess in %s', (raw, expected) => {
    expect(guesses(raw)).toEqual(expected);
  });

  it.each(['２３＋４５＝６８', '9−3=6', '7✕8=56', '17÷5=3...2', '30+( )=50', '(3+4)×2=14'])('a certain variant is not a guess: %s', (raw) => {
    expect(guesses(raw)).toEqual([]);
  });

  it('records where each substitution stands in the normalised text', () => {
    const n = normaliseMathDetailed('7 x 8 = 5O');
    expect(n.text).toBe('7×8=50');
    expect(n.substitutions).toEqual([
      { at: 1, length: 1, from: 'x', to: '×', guess: true },
      { at: 5, length: 1, from: 'O', to: '0', guess: true },
    ]);
  });

  it('maps every normalised character back to the raw characters it came from', () => {
    const raw = '１７÷５＝３…２';
    const n = normaliseMathDetailed(raw);
    expect(n.text).toBe('17÷5=3……2');
    expect(n.source).toHaveLength(n.text.length);
    expect(n.source.map(([s, e]) => raw.slice(s, e))).toEqual(['１', '７', '÷', '５', '＝', '３', '…', '…', '２']);
  });

  it('line mode keeps single spaces and punctuation as soft separators and wide gaps as hard ones', () => {
    expect(normaliseMathDetailed('23+45=68 7x8=56', 'line').text).toBe('23+45=68 7×8=56');
    expect(normaliseMathDetailed('23+45=68   7×8=56\u30003+4=7', 'line').text).toBe('23+45=68\t7×8=56\t3+4=7');
    expect(normaliseMathDetailed('23+45=68，7×8=56', 'line').text).toBe('23+45=68 7×8=56');
    expect(normaliseMathDetailed('45O54 2O+3O=5O', 'line').text).toBe('45○54 20+30=50');
  });

  it('is deterministic and idempotent on canonical text', () => {
    for (const t of ['23+45=68', '30+()=50', '45○54', '17÷5=3……2', '1/5+2/5=3/5', '(3+4)×2=14']) expect(normaliseMath(t)).toBe(t);
  });
});
