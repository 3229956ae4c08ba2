import { type Expr, type ExprError, blanksIn, evaluate, hasOperator, parseExpr, solveFor, usesFractions, wholeNumbersOnly } from './arithmetic-expr.js';
import { type Token, tokenize } from './arithmetic-tokens.js';
import { type NormalisedMath, type Substitution, normaliseMathDetailed } from './normalise.js';
import { type Rational, compare, isInteger, isNegative, parseRational } from './rational.js';

/**
 * One 口算 problem from OCR text → what kind of problem it is, the question, what the child
 * wrote and the exact expected answer. Pure; no I/O.
 *
 * Units (元 角 分 厘米 米 …) after numbers are accepted when the question uses one unit
 * (`5元+3元=8元`): they are kept in the question and the answer and ignored in the arithmetic.
 * Two different units in the question (`1元5角+2角=`, `1米○90厘米`) need a conversion the lamp
 * does not do offline: not_arithmetic. An answer in another unit than the question's is kept
 * and flagged (`unitMismatch`), for the grader to leave uncertain.
 */

export type Relation = '>' | '<' | '=';

export interface Guesses {
  /** Look-alikes guessed in the question (operators, digits of operands, the circle…). */
  question: Substitution[];
  /** Look-alikes guessed inside what the child wrote. */
  answer: Substitution[];
}

export type AmbiguousReason =
  | ExprError
  | 'empty'
  | 'no_equals'
  | 'several_equals'
  | 'several_relations'
  | 'equals_and_compare'
  | 'missing_question'
  | 'no_operator'
  | 'several_blanks'
  | 'no_single_answer'
  | 'negative_result'
  | 'no_whole_number_answer'
  | 'unreadable_answer';

interface Common {
  question: string;
  guesses: Guesses;
  /** The question's unit, when it has one (元, 厘米…). */
  unit?: string;
  /** The child's answer carries another unit than the question: a conversion the lamp does not judge. */
  unitMismatch?: boolean;
}

export type Problem =
  | (Common & { kind: 'expression'; expr: Expr; studentAnswer: string; expected: Rational; style: 'fraction' | 'decimal' })
  | (Common & { kind: 'fill_blank'; left: Expr; right: Expr; studentAnswer: string; expected: Rational; style: 'fraction' | 'decimal' })
  | (Common & { kind: 'compare'; left: Expr; right: Expr; studentAnswer: Relation | ''; expected: Relation })
  | (Common & { kind: 'remainder'; expr: Expr; studentAnswer: string; dividend: bigint; divisor: bigint; quotient: bigint; remainder: bigint; expected: Rational })
  | { kind: 'not_arithmetic'; text: string; reason: 'words' | 'mixed_units' | 'compound_quantity' }
  | { kind: 'ambiguous'; text: string; reason: AmbiguousReason };

export type ProblemKind = Problem['kind'];

/** A problem before its guesses are sorted into question and answer: the answer's span instead. */
type Core =
  | (Exclude<Problem, { kind: 'not_arithmetic' | 'ambiguous' }> & { answerSpan: readonly [number, number]; bareEquals?: boolean })
  | Extract<Problem, { kind: 'not_arithmetic' | 'ambiguous' }>;

/** Tokens with the unit written after them folded in. */
interface Tok extends Token {
  unit?: string;
}

const NO_GUESSES: Guesses = { question: [], answer: [] };

/** Item numbers before a problem: (1) 1、 1. ① 第1题. */
const LABEL = /^\s*(?:[(（]\s*\d{1,2}\s*[)）](?=\s*[\d０-９(（□口_lIOo])|\d{1,2}\s*、|\d{1,2}\s*[.．]\s+|第\s*\d{1,2}\s*题\s*[:：]?)\s*/u;

export function stripLabel(raw: string): string {
  return raw.replace(LABEL, '');
}

function ambiguous(text: string, reason: AmbiguousReason): Core {
  return { kind: 'ambiguous', text, reason };
}

/** "45(>)54", "45(>54", "45○>54", "45(○)54", "45()54" → one relation token whose text is the sign ('○' when empty). */
function mergeRelations(toks: Tok[]): Tok[] {
  const out: Tok[] = [];
  const hasEqOrRel = toks.some((t) => t.type === 'eq' || t.type === 'rel');
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    const a = toks[i + 1];
    const b = toks[i + 2];
    const prev = out[out.length - 1];
    if (t.type === 'open' && a && (a.type === 'rel' || a.type === 'eq') && b?.type === 'close') {
      out.push({ type: 'rel', text: a.text, start: t.start, end: b.end });
      i += 2;
    } else if (t.type === 'open' && a && (a.type === 'rel' || a.type === 'eq') && prev?.type === 'num' && b?.type === 'num' && !toks.slice(i + 2).some((x) => x.type === 'close')) {
      // "24+33(=57": the circle read as a bracket that never closes, the sign after it.
      out.push({ type: 'rel', text: a.text, start: t.start, end: a.end });
      i += 1;
    } else if (!hasEqOrRel && t.type === 'open' && a?.type === 'close' && prev?.type === 'num' && b?.type === 'num') {
      out.push({ type: 'rel', text: '○', start: t.start, end: a.end });
      i += 1;
    } else if (t.type === 'rel' && t.text === '○' && a && (a.type === 'rel' || a.type === 'eq') && a.text !== '○') {
      out.push({ type: 'rel', text: a.text, start: t.start, end: a.end });
      i += 1;
    } else if ((t.type === 'rel' || t.type === 'eq') && t.text !== '○' && a?.type === 'rel' && a.text === '○') {
      out.push({ type: 'rel', text: t.text, start: t.start, end: a.end });
      i += 1;
    } else out.push(t);
  }
  return out;
}

/** The question as shown: tokens [lo, hi) with the blanks emptied. */
function render(toks: readonly Tok[], lo: number, hi: number, blanks: ReadonlyArray<{ open: number; close: number }> = []): string {
  let s = '';
  for (let i = lo; i < hi; i++) {
    const b = blanks.find((x) => x.open === i);
    if (b) {
      s += '()' + (toks[b.close]?.unit ?? '');
      i = b.close;
      continue;
    }
    const t = toks[i] as Tok;
    s += t.text + (t.unit ?? '');
  }
  return s;
}

const span = (toks: readonly Tok[], lo: number, hi: number): readonly [number, number] =>
  lo < hi ? [(toks[lo] as Tok).start, (toks[hi - 1] as Tok).end] : lo > 0 ? [(toks[lo - 1] as Tok).end, (toks[lo - 1] as Tok).end] : [0, 0];

const styleOf = (...es: Expr[]): 'fraction' | 'decimal' => (es.some(usesFractions) ? 'fraction' : 'decimal');

function unwrap(e: Expr): Expr {
  return e.type === 'group' ? unwrap(e.inner) : e;
}

/** `a ÷ b` of whole numbers that does not divide evenly: a division with a remainder. */
function remainderShape(e: Expr): { dividend: bigint; divisor: bigint } | null {
  const top = unwrap(e);
  if (top.type !== 'bin' || top.op !== '÷' || !wholeNumbersOnly(top)) return null;
  const a = evaluate(top.left);
  const b = evaluate(top.right);
  if (!a.ok || !b.ok || !isInteger(a.value) || !isInteger(b.value) || isNegative(a.value) || b.value.num <= 0n) return null;
  if (a.value.num % b.value.num === 0n) return null;
  return { dividend: a.value.num, divisor: b.value.num };
}

/** A number as an answer: one number or one fraction, nothing else. */
function answerText(toks: readonly Tok[], lo: number, hi: number): string | null {
  if (lo === hi) return '';
  const body = toks.slice(lo, hi);
  if (body.length === 1 && body[0]?.type === 'num') return body[0].text;
  if (body.length === 3 && body[0]?.type === 'num' && body[1]?.type === 'slash' && body[2]?.type === 'num') return body.map((t) => t.text).join('');
  return null;
}

/** The index of the bracket that closes the one at `open`, or -1. */
function closingOf(toks: readonly Tok[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    if (toks[i]?.type === 'open') depth++;
    if (toks[i]?.type === 'close' && --depth === 0) return i;
  }
  return -1;
}

/**
 * "3", "(3)", "()" or nothing: one part of a remainder answer. A number with a point is no quotient;
 * as a remainder (`pointed`) it is kept as read, for the grader to find unreadable unless the
 * quotient is wrong anyway ("61÷7=7……1.2", a speck between the 1 and 2 read as a point).
 */
function remainderPart(toks: readonly Tok[], lo: number, hi: number, pointed = false): string | null {
  const body = toks.slice(lo, hi);
  if (body.length === 0) return '';
  if (body.length === 1 && body[0]?.type === 'num' && (pointed || !body[0].text.includes('.'))) return body[0].text;
  if (body[0]?.type === 'open' && closingOf(toks, lo) === hi - 1) return remainderPart(toks, lo + 1, hi - 1, pointed);
  return null;
}

function remainderProblem(toks: Tok[], eq: number, expr: Expr, unit: string | undefined): Core {
  const text = render(toks, 0, toks.length);
  let lo = eq + 1;
  let hi = toks.length;
  // "17÷5=(3……2)": the whole answer in one blank.
  if (toks[lo]?.type === 'open' && closingOf(toks, lo) === hi - 1) {
    lo++;
    hi--;
  }
  const marks = toks.map((t, i) => (t.type === 'rem' && i >= lo && i < hi ? i : -1)).filter((i) => i >= 0);
  if (marks.length !== 1) return ambiguous(text, 'unreadable_answer');
  const m = marks[0] as number;
  const q = remainderPart(toks, lo, m);
  const r = remainderPart(toks, m + 1, hi, true);
  if (q === null || r === null) return ambiguous(text, 'unreadable_answer');
  const top = unwrap(expr);
  if (top.type !== 'bin' || top.op !== '÷' || !wholeNumbersOnly(top)) return ambiguous(text, 'unreadable_answer');
  const a = evaluate(top.left);
  const b = evaluate(top.right);
  if (!a.ok || !b.ok) return ambiguous(text, 'division_by_zero');
  if (!isInteger(a.value) || !isInteger(b.value) || isNegative(a.value) || isNegative(b.value)) return ambiguous(text, 'unreadable_answer');
  if (b.value.num === 0n) return ambiguous(text, 'division_by_zero');
  const value = evaluate(expr);
  if (!value.ok) return ambiguous(text, 'division_by_zero');
  return {
    kind: 'remainder',
    question: render(toks, 0, eq + 1),
    expr,
    studentAnswer: q === '' && r === '' ? '' : `${q}……${r}`,
    dividend: a.value.num,
    divisor: b.value.num,
    quotient: a.value.num / b.value.num,
    remainder: a.value.num % b.value.num,
    expected: value.value,
    guesses: NO_GUESSES,
    ...(unit ? { unit } : {}),
    answerSpan: span(toks, eq + 1, toks.length),
  };
}

function compareProblem(toks: Tok[], rel: number, text: string): Core {
  const left = parseExpr(toks, 0, rel, false);
  if (!left.ok) return ambiguous(text, left.error);
  const right = parseExpr(toks, rel + 1, toks.length, false);
  if (!right.ok) return ambiguous(text, right.error);
  const l = evaluate(left.expr);
  const r = evaluate(right.expr);
  if (!l.ok || !r.ok) return ambiguous(text, 'division_by_zero');
  // Grades 1–3 never compare a negative number: "5-11○6" is 5+11 with its + misread.
  if (isNegative(l.value) || isNegative(r.value)) return ambiguous(text, 'negative_result');
  const c = compare(l.value, r.value);
  const sign = (toks[rel] as Tok).text;
  return {
    kind: 'compare',
    question: `${render(toks, 0, rel)}○${render(toks, rel + 1, toks.length)}`,
    left: left.expr,
    right: right.expr,
    studentAnswer: sign === '○' ? '' : (sign as Relation),
    expected: c < 0 ? '<' : c > 0 ? '>' : '=',
    guesses: NO_GUESSES,
    answerSpan: span(toks, rel, rel + 1),
  };
}

/** Folds units into the tokens before them; rejects words and mixed units. */
function foldUnits(tokens: Token[], text: string): { toks: Tok[] } | { core: Core } {
  if (tokens.some((t) => t.type === 'word' || t.type === 'sep')) return { core: { kind: 'not_arithmetic', text, reason: 'words' } };
  const toks: Tok[] = [];
  for (const t of tokens) {
    const prev = toks[toks.length - 1];
    if (t.type === 'unit' && prev) {
      if (prev.unit) return { core: { kind: 'not_arithmetic', text, reason: 'words' } };
      toks.push({ ...toks.pop(), unit: t.text } as Tok);
    } else if (t.type === 'num' && prev?.unit) {
      // 1元5角: a quantity in two units.
      return { core: { kind: 'not_arithmetic', text, reason: 'compound_quantity' } };
    } else toks.push({ ...t });
  }
  return { toks };
}

/** The problem in canonical tokens; `text` is the normalised text, for reporting. */
function classify(tokens: Token[], text: string): Core {
  if (tokens.length === 0) return ambiguous(text, 'empty');
  const folded = foldUnits(tokens, text);
  if ('core' in folded) return folded.core;
  const toks = mergeRelations(folded.toks);
  const eqs = toks.flatMap((t, i) => (t.type === 'eq' ? [i] : []));
  const rels = toks.flatMap((t, i) => (t.type === 'rel' ? [i] : []));
  // Units: one for the question, maybe another on the answer.
  const answerFrom = rels.length === 0 && eqs.length === 1 ? (eqs[0] as number) + 1 : toks.length;
  const questionUnits = new Set(toks.slice(0, answerFrom).flatMap((t) => (t.unit ? [t.unit] : [])));
  const answerUnits = new Set(toks.slice(answerFrom).flatMap((t) => (t.unit ? [t.unit] : [])));
  if (questionUnits.size > 1 || answerUnits.size > 1) return { kind: 'not_arithmetic', text, reason: 'mixed_units' };
  const qUnit = [...questionUnits][0];
  const aUnit = [...answerUnits][0];
  const unitInfo = { ...(qUnit ?? aUnit ? { unit: (qUnit ?? aUnit) as string } : {}), ...(qUnit && aUnit && qUnit !== aUnit ? { unitMismatch: true } : {}) };

  if (rels.length > 1) return ambiguous(text, 'several_relations');
  if (rels.length === 1) {
    if (eqs.length > 0) return ambiguous(text, 'equals_and_compare');
    return compareProblem(toks, rels[0] as number, text);
  }
  if (eqs.length === 0) return ambiguous(text, 'no_equals');
  if (eqs.length > 1) return ambiguous(text, 'several_equals');
  const eq = eqs[0] as number;
  if (eq === 0) return ambiguous(text, 'missing_question');

  const leftP = parseExpr(toks, 0, eq, true);
  if (!leftP.ok) return ambiguous(text, leftP.error);
  const left = leftP.expr;
  if (toks.slice(eq + 1).some((t) => t.type === 'rem')) {
    if (blanksIn(left).length > 0) return ambiguous(text, 'several_blanks');
    return { ...remainderProblem(toks, eq, left, qUnit ?? aUnit), ...unitInfo } as Core;
  }

  const plain = answerText(toks, eq + 1, toks.length);
  const leftBlanks = blanksIn(left);
  if (plain !== null && leftBlanks.length === 0) {
    // a op b = answer
    if (!hasOperator(left)) return ambiguous(text, 'no_operator');
    if (plain !== '' && !parseRational(plain)) return ambiguous(text, 'unreadable_answer');
    const v = evaluate(left);
    if (!v.ok) return ambiguous(text, 'division_by_zero');
    if (isNegative(v.value)) return ambiguous(text, 'negative_result');
    const question = render(toks, 0, eq + 1);
    const answerSpan = span(toks, eq + 1, toks.length);
    const studentAnswer = plain + (aUnit ?? '');
    const shape = remainderShape(left);
    if (shape && styleOf(left) === 'decimal') {
      return {
        kind: 'remainder',
        question,
        expr: left,
        studentAnswer,
        ...shape,
        quotient: shape.dividend / shape.divisor,
        remainder: shape.dividend % shape.divisor,
        expected: v.value,
        guesses: NO_GUESSES,
        ...unitInfo,
        answerSpan,
      };
    }
    return { kind: 'expression', question, expr: left, studentAnswer, expected: v.value, style: styleOf(left), guesses: NO_GUESSES, ...unitInfo, answerSpan };
  }

  const rightP = parseExpr(toks, eq + 1, toks.length, true);
  if (!rightP.ok) return ambiguous(text, plain === null && rightP.error === 'unexpected_sign' ? 'unreadable_answer' : rightP.error);
  const right = rightP.expr;
  const blanks = [...leftBlanks, ...blanksIn(right)];
  if (blanks.length === 0) {
    // 3+4=2+5: a comparison answered with '=' whose circle OCR did not see. The bare '=' might
    // as well be a misread answer (68 read as 6+8), so it counts as a guess in the answer.
    if (!hasOperator(left) && !hasOperator(right)) return ambiguous(text, 'no_operator');
    const c = compareProblem(toks.map((t, i) => (i === eq ? { ...t, type: 'rel', text: '=' } : t)), eq, text);
    return c.kind === 'compare' ? { ...c, bareEquals: true } : c;
  }
  if (blanks.length > 1) return ambiguous(text, 'several_blanks');
  if (!hasOperator(left) && !hasOperator(right)) return ambiguous(text, 'no_operator');
  const blank = blanks[0] as Extract<Expr, { type: 'blank' }>;
  const blankInLeft = leftBlanks.length === 1;
  const known = evaluate(blankInLeft ? right : left);
  if (!known.ok) return ambiguous(text, 'division_by_zero');
  const solved = solveFor(blankInLeft ? left : right, known.value);
  if (!solved.ok) return ambiguous(text, solved.error === 'division_by_zero' ? 'division_by_zero' : 'no_single_answer');
  if (isNegative(solved.value)) return ambiguous(text, 'negative_result');
  const question = render(toks, 0, toks.length, [blank]);
  const answerSpan = span(toks, blank.open + 1, blank.close);
  const shape = !blankInLeft && unwrap(right).type === 'blank' ? remainderShape(left) : null;
  if (shape && styleOf(left) === 'decimal') {
    return {
      kind: 'remainder',
      question: render(toks, 0, eq + 1),
      expr: left,
      studentAnswer: blank.text,
      ...shape,
      quotient: shape.dividend / shape.divisor,
      remainder: shape.dividend % shape.divisor,
      expected: solved.value,
      guesses: NO_GUESSES,
      ...unitInfo,
      answerSpan,
    };
  }
  // A blank among whole numbers that only a fraction fills (3×( )=10) is a misread question.
  if (!isInteger(solved.value) && wholeNumbersOnly(left) && wholeNumbersOnly(right) && !(unwrap(right).type === 'blank' || unwrap(left).type === 'blank')) {
    return ambiguous(text, 'no_whole_number_answer');
  }
  return { kind: 'fill_blank', question, left, right, studentAnswer: blank.text, expected: solved.value, style: styleOf(left, right), guesses: NO_GUESSES, ...unitInfo, answerSpan };
}

/**
 * One missing bracket is put back when every place it could go gives the same problem and
 * answer; otherwise the problem stays ambiguous. A place that turns a number into a fill-in
 * blank counts only when no other place works ("30+(20=50" is a blank; "3+4)×2=14" is not).
 */
function classifyWithRepair(tokens: Token[], text: string): Core & { repairedAt?: number; repairedWith?: string } {
  const core = classify(tokens, text);
  if (core.kind !== 'ambiguous' || core.reason !== 'unbalanced_brackets') return core;
  const opens = tokens.filter((t) => t.type === 'open').length;
  const closes = tokens.filter((t) => t.type === 'close').length;
  if (Math.abs(opens - closes) !== 1) return core;
  const missing: Token['type'] = opens > closes ? 'close' : 'open';
  const found: Array<{ core: Exclude<Core, { kind: 'ambiguous' | 'not_arithmetic' }>; at: number }> = [];
  for (let p = 0; p <= tokens.length; p++) {
    const at = p < tokens.length ? (tokens[p] as Token).start : text.length;
    const tried = [...tokens.slice(0, p), { type: missing, text: missing === 'open' ? '(' : ')', start: at, end: at }, ...tokens.slice(p)];
    const c = classify(tried, text);
    if (c.kind !== 'ambiguous' && c.kind !== 'not_arithmetic') found.push({ core: c, at });
  }
  const plain = found.filter((f) => f.core.kind !== 'fill_blank');
  const use = plain.length > 0 ? plain : found;
  const sig = (c: Exclude<Core, { kind: 'ambiguous' | 'not_arithmetic' }>): string => `${c.kind}|${c.studentAnswer}|${typeof c.expected === 'string' ? c.expected : `${c.expected.num}/${c.expected.den}`}`;
  const first = use[0];
  if (!first || use.some((f) => sig(f.core) !== sig(first.core))) return core;
  return { ...first.core, repairedAt: first.at, repairedWith: missing === 'open' ? '(' : ')' };
}

export interface Analysis {
  problem: Problem;
  /** The normalised text the problem was read from (after the item number was stripped). */
  normalised: NormalisedMath;
}

function overlaps(s: Substitution, [a, b]: readonly [number, number]): boolean {
  if (s.length === 0) return s.at > a && s.at < b;
  return s.at < b && s.at + s.length > a;
}

/** Parses canonical text (already normalised), sorting the given substitutions into question and answer. */
export function analyseNormalised(normalised: NormalisedMath): Analysis {
  const core = classifyWithRepair(tokenize(normalised.text), normalised.text);
  if (core.kind === 'ambiguous' || core.kind === 'not_arithmetic') return { problem: core, normalised };
  const { answerSpan, repairedAt, repairedWith, bareEquals, ...problem } = core as typeof core & { repairedAt?: number; repairedWith?: string; bareEquals?: boolean };
  const guessed = normalised.substitutions.filter((s) => s.guess);
  if (bareEquals) guessed.push({ at: answerSpan[0], length: 1, from: '=', to: '=', guess: true });
  const question = guessed.filter((s) => !overlaps(s, answerSpan));
  // A bracket put back is a guess about the question, not about what the child wrote.
  if (repairedAt !== undefined) question.push({ at: repairedAt, length: 0, from: '', to: repairedWith ?? '', guess: true });
  return { problem: { ...problem, guesses: { question, answer: guessed.filter((s) => overlaps(s, answerSpan)) } } as Problem, normalised };
}

/** OCR text of one problem → its analysis (the problem and the normalised text with its substitutions). */
export function analyseProblem(text: string): Analysis {
  return analyseNormalised(normaliseMathDetailed(stripLabel(text)));
}

/** OCR text of one problem → the problem: expression, fill_blank, compare, remainder, not_arithmetic or ambiguous. */
export function parseProblem(text: string): Problem {
  return analyseProblem(text).problem;
}
