import { describe, expect, it } from 'vitest';
import { type Expr, evaluate, parseExpr, solveFor } from './arithmetic-expr.js';
import { parseProblem, stripLabel } from './arithmetic-parse.js';
import { tokenize } from './arithmetic-tokens.js';
import { parseRational, toFraction } from './rational.js';

const expr = (text: string, blanks = true): Expr => {
  const toks = tokenize(text);
  const r = parseExpr(toks, 0, toks.length, blanks);
  if (!r.ok) throw new Error(`${text}: ${r.error}`);
  return r.expr;
};
const value = (text: string): string => {
  const v = evaluate(expr(text));
  return v.ok ? toFraction(v.value) : v.error;
};

describe('expressions', () => {
  it.each([
    ['2+3×4', '14'],
    ['(2+3)×4', '20'],
    ['20-8-2', '10'],
    ['48÷6÷2', '4'],
    ['48÷(6÷2)', '16'],
    ['2×3+4×5', '26'],
    ['100-(25+25)×2', '0'],
    ['1/3+1/6', '1/2'],
    ['3-1/4', '11/4'],
    ['0.1+0.2', '3/10'],
    ['5÷0', 'division_by_zero'],
    ['5÷(2-2)', 'division_by_zero'],
    ['7÷2', '7/2'],
  ])('%s = %s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it.each([
    ['3+', 'operator_without_operand'],
    ['+3', 'operator_without_operand'],
    ['3+×4', 'operator_without_operand'],
    ['(3+4', 'unbalanced_brackets'],
    ['3+4)', 'unbalanced_brackets'],
    ['3(4)', 'missing_operator'],
    ['1/2/3', 'bad_fraction'],
    ['1.5/2', 'bad_fraction'],
    ['1/0', 'division_by_zero'],
  ])('%s is rejected: %s', (text, error) => {
    const toks = tokenize(text);
    expect(parseExpr(toks, 0, toks.length, true)).toEqual({ ok: false, error });
  });

  it('a lone number in brackets is a blank where blanks may be, a group elsewhere', () => {
    expect(expr('(20)+30')).toMatchObject({ type: 'bin', left: { type: 'blank', text: '20' } });
    expect(expr('(20)+30', false)).toMatchObject({ type: 'bin', left: { type: 'group', inner: { type: 'num', text: '20' } } });
    const toks = tokenize('()+30');
    expect(parseExpr(toks, 0, toks.length, false)).toEqual({ ok: false, error: 'blank_not_allowed' });
  });

  it.each([
    ['()+20', '50', '30'],
    ['30+()', '50', '20'],
    ['80-()', '30', '50'],
    ['()-20', '30', '50'],
    ['()×7', '56', '8'],
    ['56÷()', '8', '7'],
    ['()÷8', '7', '56'],
    ['3+()×2', '11', '4'],
    ['(()+2)×3', '15', '3'],
    ['0×()', '0', 'many_solutions'],
    ['0×()', '5', 'no_solution'],
    ['5÷()', '0', 'no_solution'],
    ['0÷()', '0', 'many_solutions'],
    ['()÷0', '5', 'division_by_zero'],
  ])('%s = %s: the blank is %s', (text, target, expected) => {
    const s = solveFor(expr(text), parseRational(target) as NonNullable<ReturnType<typeof parseRational>>);
    expect(s.ok ? toFraction(s.value) : s.error).toBe(expected);
  });
});

describe('parseProblem', () => {
  it('an expression: question, the expression and what the child wrote', () => {
    expect(parseProblem('2+3×4=14')).toMatchObject({ kind: 'expression', question: '2+3×4=', studentAnswer: '14', expr: { type: 'bin', op: '+' } });
  });

  it.each([
    ['30+( )=50', '30+()=50', ''],
    ['30+(20)=50', '30+()=50', '20'],
    ['(30)+20=50', '()+20=50', '30'],
    ['30+20=(50)', '30+20=()', '50'],
    ['30元+(20)元=50元', '30元+()元=50元', '20'],
  ])('a fill-in blank %s: question %s, answer %j', (text, question, studentAnswer) => {
    expect(parseProblem(text)).toMatchObject({ kind: 'fill_blank', question, studentAnswer });
  });

  it.each([
    ['45○54', '45○54', ''],
    ['45>54', '45○54', '>'],
    ['3+4○8', '3+4○8', ''],
    ['3+4(<)8', '3+4○8', '<'],
    ['8○=2×4', '8○2×4', '='],
    ['45()54', '45○54', ''],
  ])('a comparison %s: question %s, sign %j', (text, question, studentAnswer) => {
    expect(parseProblem(text)).toMatchObject({ kind: 'compare', question, studentAnswer });
  });

  it('a remainder: question, what the child wrote, quotient and remainder', () => {
    expect(parseProblem('17÷5=3……2')).toMatchObject({ kind: 'remainder', question: '17÷5=', studentAnswer: '3……2', dividend: 17n, divisor: 5n, quotient: 3n, remainder: 2n });
    expect(parseProblem('17÷5=(  )……(  )')).toMatchObject({ kind: 'remainder', studentAnswer: '' });
    expect(parseProblem('17÷5=(3)……(  )')).toMatchObject({ kind: 'remainder', studentAnswer: '3……' });
  });

  it.each([
    ['5元+3元=8元', '元'],
    ['35厘米+15厘米=50厘米', '厘米'],
    ['6kg+4kg=10kg', 'kg'],
  ])('units of one kind are kept aside: %s', (text, unit) => {
    expect(parseProblem(text)).toMatchObject({ kind: 'expression', unit });
  });

  it.each([
    ['小明有5个苹果', 'words'],
    ['5个+3个=8个', 'words'],
    ['1元5角+2角=', 'compound_quantity'],
    ['1米+20厘米=', 'mixed_units'],
    ['x+3=5', 'words'],
  ])('not arithmetic: %s (%s)', (text, reason) => {
    expect(parseProblem(text)).toEqual({ kind: 'not_arithmetic', text: expect.any(String), reason });
  });

  it('sorts look-alike guesses into the question and the answer', () => {
    const p = parseProblem('7x8=5O');
    expect(p.kind).toBe('expression');
    if (p.kind !== 'expression') return;
    expect(p.guesses.question.map((g) => g.from)).toEqual(['x']);
    expect(p.guesses.answer.map((g) => g.from)).toEqual(['O']);
  });

  it.each([
    ['(1)23+45=68', '23+45=68'],
    ['（2）7×8=56', '7×8=56'],
    ['3、7×8=56', '7×8=56'],
    ['4. 7×8=56', '7×8=56'],
    ['第5题：7×8=56', '7×8=56'],
    // Not item numbers: a bracketed operand, a decimal.
    ['(12)+3=15', '(12)+3=15'],
    ['1.5+1=2.5', '1.5+1=2.5'],
  ])('strips the item number of %s', (text, expected) => {
    expect(stripLabel(text)).toBe(expected);
  });
});
