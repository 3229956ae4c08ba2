import type { Token } from './arithmetic-tokens.js';
import { type Rational, add, div, isZero, mul, parseRational, rat, sub } from './rational.js';

/**
 * Expressions of a 口算 problem: a recursive-descent parser over tokens with the usual
 * precedence (brackets, then the fraction bar, then × ÷, then + -, left to right), exact
 * evaluation, and solving for the one blank of a fill-in problem. Pure; no I/O.
 */

export type Op = '+' | '-' | '×' | '÷' | '/';

export type Expr =
  /** A number as written: "12", "0.5", or a fraction literal "1/5". */
  | { type: 'num'; text: string; value: Rational; fraction: boolean }
  /** A fill-in blank "( )"; `text` is what the child wrote inside ('' when nothing). */
  | { type: 'blank'; text: string; open: number; close: number }
  | { type: 'bin'; op: Op; left: Expr; right: Expr }
  | { type: 'group'; inner: Expr };

export type ExprError =
  | 'unbalanced_brackets'
  | 'operator_without_operand'
  | 'missing_operator'
  | 'bad_fraction'
  | 'division_by_zero'
  | 'unexpected_sign'
  | 'blank_not_allowed';

export type ParseResult = { ok: true; expr: Expr } | { ok: false; error: ExprError };

class Failure {
  constructor(readonly error: ExprError) {}
}

/**
 * Parses tokens [lo, hi) as one expression. With `blanks`, "()" and a bracket holding a single
 * number ("(20)") are fill-in blanks: nobody brackets a lone number in a 口算 drill otherwise.
 * Without, "(20)" is a plain group and "()" is an error.
 */
export function parseExpr(tokens: readonly Token[], lo: number, hi: number, blanks: boolean): ParseResult {
  let i = lo;
  let depth = 0;
  const peek = (k = 0): Token | undefined => (i + k < hi ? tokens[i + k] : undefined);
  const fail = (error: ExprError): never => {
    throw new Failure(error);
  };

  const number = (t: Token): Expr => {
    const value = parseRational(t.text);
    if (!value) return fail('bad_fraction');
    return { type: 'num', text: t.text, value, fraction: false };
  };

  /** "a/b" of two whole numbers is one fraction literal. */
  const fractionLiteral = (): Expr | null => {
    const a = peek();
    const s = peek(1);
    const b = peek(2);
    if (a?.type !== 'num' || s?.type !== 'slash' || b?.type !== 'num') return null;
    if (a.text.includes('.') || b.text.includes('.')) return fail('bad_fraction');
    i += 3;
    const den = BigInt(b.text);
    if (den === 0n) return fail('division_by_zero');
    return { type: 'num', text: `${a.text}/${b.text}`, value: rat(BigInt(a.text), den), fraction: true };
  };

  const atom = (): Expr => {
    const t = peek();
    if (!t) return fail('operator_without_operand');
    if (t.type === 'num') {
      const f = fractionLiteral();
      if (f) return f;
      i++;
      return number(t);
    }
    if (t.type === 'open') {
      const open = i;
      const n1 = peek(1);
      if (n1?.type === 'close') {
        if (!blanks) return fail('blank_not_allowed');
        i += 2;
        return { type: 'blank', text: '', open, close: open + 1 };
      }
      if (blanks && n1?.type === 'num') {
        const single = peek(2)?.type === 'close';
        const frac = peek(2)?.type === 'slash' && peek(3)?.type === 'num' && peek(4)?.type === 'close';
        if (single || frac) {
          i++;
          const inner = frac ? (fractionLiteral() as Expr) : (i++, number(n1));
          const close = i;
          i++;
          return { type: 'blank', text: inner.type === 'num' ? inner.text : '', open, close };
        }
      }
      i++;
      depth++;
      const inner = sum();
      if (peek()?.type !== 'close') return fail('unbalanced_brackets');
      i++;
      depth--;
      return { type: 'group', inner };
    }
    if (t.type === 'close') return fail(depth > 0 ? 'operator_without_operand' : 'unbalanced_brackets');
    if (t.type === 'op' || t.type === 'slash') return fail('operator_without_operand');
    return fail('unexpected_sign');
  };

  const fraction = (): Expr => {
    const left = atom();
    if (peek()?.type !== 'slash') return left;
    // 6/8/9: a fraction of a fraction is not something a child writes.
    if (left.type === 'num' && left.fraction) return fail('bad_fraction');
    i++;
    const right = atom();
    if (peek()?.type === 'slash') return fail('bad_fraction');
    return { type: 'bin', op: '/', left, right };
  };

  const product = (): Expr => {
    let left = fraction();
    for (let t = peek(); t?.type === 'op' && (t.text === '×' || t.text === '÷'); t = peek()) {
      i++;
      left = { type: 'bin', op: t.text as Op, left, right: fraction() };
    }
    return left;
  };

  const sum = (): Expr => {
    let left = product();
    for (let t = peek(); t?.type === 'op' && (t.text === '+' || t.text === '-'); t = peek()) {
      i++;
      left = { type: 'bin', op: t.text as Op, left, right: product() };
    }
    return left;
  };

  try {
    if (lo >= hi) return { ok: false, error: 'operator_without_operand' };
    const expr = sum();
    const rest = peek();
    if (rest) {
      if (rest.type === 'close') return { ok: false, error: 'unbalanced_brackets' };
      if (rest.type === 'num' || rest.type === 'open') return { ok: false, error: 'missing_operator' };
      return { ok: false, error: 'unexpected_sign' };
    }
    return { ok: true, expr };
  } catch (e) {
    if (e instanceof Failure) return { ok: false, error: e.error };
    throw e;
  }
}

export type Evaluation = { ok: true; value: Rational } | { ok: false; error: 'division_by_zero' | 'blank' };

function apply(op: Op, a: Rational, b: Rational): Rational | null {
  switch (op) {
    case '+':
      return add(a, b);
    case '-':
      return sub(a, b);
    case '×':
      return mul(a, b);
    case '÷':
    case '/':
      return div(a, b);
  }
}

/** The exact value; a blank has none. */
export function evaluate(e: Expr): Evaluation {
  switch (e.type) {
    case 'num':
      return { ok: true, value: e.value };
    case 'blank':
      return { ok: false, error: 'blank' };
    case 'group':
      return evaluate(e.inner);
    case 'bin': {
      const l = evaluate(e.left);
      if (!l.ok) return l;
      const r = evaluate(e.right);
      if (!r.ok) return r;
      const v = apply(e.op, l.value, r.value);
      return v ? { ok: true, value: v } : { ok: false, error: 'division_by_zero' };
    }
  }
}

export function blanksIn(e: Expr): Array<Extract<Expr, { type: 'blank' }>> {
  switch (e.type) {
    case 'blank':
      return [e];
    case 'group':
      return blanksIn(e.inner);
    case 'bin':
      return [...blanksIn(e.left), ...blanksIn(e.right)];
    default:
      return [];
  }
}

export function hasOperator(e: Expr): boolean {
  if (e.type === 'group') return hasOperator(e.inner);
  return e.type === 'bin';
}

/** Whether any number is a fraction literal or a fraction bar is used: answers are then shown as fractions. */
export function usesFractions(e: Expr): boolean {
  switch (e.type) {
    case 'num':
      return e.fraction;
    case 'group':
      return usesFractions(e.inner);
    case 'bin':
      return e.op === '/' || usesFractions(e.left) || usesFractions(e.right);
    default:
      return false;
  }
}

/** Whether every number written is a whole number (no decimals, no fractions). */
export function wholeNumbersOnly(e: Expr): boolean {
  switch (e.type) {
    case 'num':
      return !e.fraction && !e.text.includes('.');
    case 'group':
      return wholeNumbersOnly(e.inner);
    case 'bin':
      return e.op !== '/' && wholeNumbersOnly(e.left) && wholeNumbersOnly(e.right);
    default:
      return true;
  }
}

export type Solution = { ok: true; value: Rational } | { ok: false; error: 'division_by_zero' | 'no_solution' | 'many_solutions' };

/**
 * The value of the single blank in `e` that makes `e` equal `target`, by undoing each operation
 * on the path from the top to the blank. 0×( )=0 has many solutions and 0×( )=5 none.
 */
export function solveFor(e: Expr, target: Rational): Solution {
  if (e.type === 'blank') return { ok: true, value: target };
  if (e.type === 'group') return solveFor(e.inner, target);
  if (e.type === 'num') return { ok: false, error: 'no_solution' };
  const inLeft = blanksIn(e.left).length > 0;
  const known = evaluate(inLeft ? e.right : e.left);
  if (!known.ok) return { ok: false, error: known.error === 'blank' ? 'many_solutions' : 'division_by_zero' };
  const k = known.value;
  const next = (value: Rational | null, none: 'no_solution' | 'many_solutions' = 'no_solution'): Solution =>
    value ? solveFor(inLeft ? e.left : e.right, value) : { ok: false, error: none };
  switch (e.op) {
    case '+':
      return next(sub(target, k));
    case '-':
      return next(inLeft ? add(target, k) : sub(k, target));
    case '×':
      if (isZero(k)) return { ok: false, error: isZero(target) ? 'many_solutions' : 'no_solution' };
      return next(div(target, k));
    case '÷':
    case '/':
      if (inLeft) return isZero(k) ? { ok: false, error: 'division_by_zero' } : next(mul(target, k));
      // k ÷ x = target: x = k ÷ target, and x may not be 0.
      if (isZero(target)) return { ok: false, error: isZero(k) ? 'many_solutions' : 'no_solution' };
      if (isZero(k)) return { ok: false, error: 'no_solution' };
      return next(div(k, target));
  }
}
