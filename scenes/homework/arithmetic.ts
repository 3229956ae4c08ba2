import { type Gradable, correctAnswer, matchAnswer, withoutUnit } from './arithmetic-answer.js';
import { type Analysis, type ProblemKind, analyseNormalised, analyseProblem } from './arithmetic-parse.js';
import { normaliseMath, type Substitution } from './normalise.js';
import type { Rational } from './rational.js';

/**
 * Offline checking of 口算 homework from OCR text: one problem → a verdict the lamp can say to
 * a child. Marking a right answer wrong is the worst thing the lamp can do, so 'incorrect' needs
 * an unambiguous problem, a confident reading and an answer that is clearly different; anything
 * less is 'uncertain' and goes to the cloud. Pure and deterministic; no I/O.
 *
 * Rules, in order:
 * 1. Not arithmetic (Chinese words, letters, mixed units) or ambiguous (two '=', an operator
 *    without an operand, brackets that cannot be put back, division by zero, a negative
 *    result, no single answer) → uncertain, the reason says which.
 * 2. OCR confidence below `minConfidence`, or its weakest character below `minCharConfidence`
 *    → uncertain ('low_confidence', 'low_char_confidence') — unless the reading, down to
 *    `CORRECT_FLOOR`/`CORRECT_CHAR_FLOOR` and with no look-alike guessed in the answer, is
 *    exactly the right answer: then correct (the reason still says the reading was shaky).
 *    Down to the same floors, nothing written where the caller saw bare paper after the "="
 *    (`blankSeen`; not a fill-in bracket) is a blank: the question's doubt does not matter.
 *    A written answer whose only doubt is a few weak characters (`weakChars`, each at least
 *    `CORRECT_CHAR_FLOOR`) is graded as if they were sure when it is wrong however they are read:
 *    as read, as the recogniser's second choice, a digit or point left out, a remainder's dots
 *    "……" as one point or left out, an operator as any operator.
 * 3. Nothing written → incorrect with reason 'blank' when the reading is very confident
 *    (`blankMinConfidence`), no look-alike was guessed where the answer goes and it is not an
 *    empty fill-in bracket (OCR moves a bracket's content); otherwise uncertain 'blank_maybe_unread'.
 *    When the caller saw bare paper where the answer goes (`blankSeen`), the ink settles it: blank
 *    (a fill-in bracket still needs `blankMinConfidence`). Something read after the "=" that is
 *    no answer ("2÷2=!", "3÷2=." for 1……1) is never a blank: uncertain 'unreadable_answer'.
 * 4. The answer in another unit than the question's → uncertain 'unit_conversion'.
 * 5. The answer equals the exact value → correct. Equivalent forms count: 0.50 = 0.5,
 *    2/4 = 1/2 (grade 3 adds fractions with the same denominator and does not reduce them;
 *    `requireLowestTerms` turns that off), 0.5 = 1/2, 15÷5 = 3……0. A look-alike in the answer
 *    that reads as exactly the right value is still correct (with lower confidence) unless
 *    `strictLookalikeAnswers`: a misreading that lands on the right answer by chance is far less
 *    likely than the child having written it. In a problem with decimals, an answer read with a
 *    leading zero is read with the point after it ("03" for 0.3): correct, 'decimal_point_put_back'.
 * 6. A different answer is uncertain when a look-alike was guessed in it, when another reading
 *    of a guessed operator in the question makes it right, when a missing bracket was put back
 *    ('bracket_guessed'), when a remainder may have been lost
 *    (17÷5=3, 17÷5=32, 17÷5=3.2 for 3……2; 17÷5=2, the quotient and dots lost), when a decimal point may be lost or a speck read as
 *    one (2.5-0.1=24, 65 read as 6.5; in the question too: 12+0.6=18 for 1.2+0.6=1.8), when a whole number is read with a leading zero
 *    ('answer_misread': 64 read as 04; so is a wrong 0, unless reading an operator as "-" gives
 *    it), or when the confidence after the look-alike
 *    penalty is below `minConfidence`, or when a 0 of the answer read as 6, 9 or 8 makes it right
 *    ('answer_misread': a blurred handwritten 16 reads as 10), or when reading one printed operator as the one OCR
 *    confuses it with (÷ ↔ + or -, × ↔ +, - → +) makes it right ('operator_may_be_misread'), or a ×
 *    lost between two digits does (3×3+19=28 read as 33+19=28, 'operator_may_be_lost'): the
 *    child may have made that very mistake, but a right answer marked wrong is worse. An
 *    operator whose ink the caller confirmed (`inkConfirmed`) is not read as another, nor as a
 *    look-alike its ink rules out (`inkRuledOut`); one between two fractions not as × or ÷
 *    (grades 1–3 only add and subtract fractions). Likewise
 *    when, in a problem with fractions, a "1" between digits read as a fraction bar makes it
 *    right ('fraction_bar_may_be_misread': 2/7 read as 217), or a fraction bar lost between two
 *    digits does ('fraction_bar_may_be_lost': 4/7 read as 47), or the answer is a fraction and
 *    the question was read without one (its bars lost: "47+17=5/7"). Otherwise incorrect.
 *
 * Confidence reported = OCR confidence − 0.05 per look-alike guessed, never below 0.
 */

export type Verdict = 'correct' | 'incorrect' | 'uncertain';

export interface GradeInput {
  text: string;
  /** OCR confidence of the line or piece, 0–1. */
  confidence: number;
  /** Confidence of its least certain character, 0–1. */
  minCharConfidence?: number;
  /**
   * Positions in `text` of operators the page's ink confirms (a ÷ with both dots, a bare -, an x
   * that is a cross of diagonals): they are never taken for their look-alikes.
   */
  inkConfirmed?: ReadonlySet<number>;
  /** Positions in `text` of operators with the one look-alike the page's ink rules out for each (a + whose shape is no ×). */
  inkRuledOut?: ReadonlyMap<number, string>;
  /**
   * The page's ink where the answer goes (after the "=", or between a fill-in bracket's halves)
   * is bare paper: an empty reading there is a blank, not a lost answer.
   */
  blankSeen?: boolean;
  /**
   * The page's ink right of the answer is bare paper: no remainder was written after it, so none
   * can have been lost ("15÷2=7" is wrong, and so is "15+2=7" read as a ÷ that lost its dots).
   */
  nothingAfterAnswer?: boolean;
  /**
   * The digits between a fill-in blank's brackets are the child's (the caller saw them in the
   * pen's colour): no printed × was lost between them ("( 4 8 )+8=40" is no 4×8).
   */
  blankWrittenByChild?: boolean;
  /**
   * Every character read below `minCharConfidence`, by its position in `text`, with the
   * recogniser's second choice for it (a remainder's "……" counts as one character). With them a
   * shaky reading may still be wrong (rule 2).
   */
  weakChars?: readonly WeakChar[];
}

/** A weak character by its position in the text: one character, or a remainder's dots "……". */
export interface WeakChar {
  at: number;
  runnerUp?: string;
}

const REMAINDER_DOTS = '……';

export interface GradeOptions {
  /** Below this OCR confidence nothing is marked right or wrong. Default 0.80. */
  minConfidence?: number;
  /** Below this confidence of the weakest character nothing is marked right or wrong. Default 0.50. */
  minCharConfidence?: number;
  /** A blank is marked 'incorrect'/'blank' only at or above this confidence. Default 0.90. */
  blankMinConfidence?: number;
  /** A fraction answer must be in lowest terms (grade 5 onwards). Default false. */
  requireLowestTerms?: boolean;
  /** A look-alike in the answer makes even a matching answer uncertain. Default false. */
  strictLookalikeAnswers?: boolean;
}

export interface GradeResult {
  question: string;
  student_answer: string;
  /** Canonical exact answer: 14, 0.75, 1/2, 3……2, '>'; null when the lamp cannot tell. */
  correct_answer: string | null;
  verdict: Verdict;
  confidence: number;
  reason?: string;
  kind: ProblemKind;
}

export const DEFAULT_MIN_CONFIDENCE = 0.8;
export const DEFAULT_MIN_CHAR_CONFIDENCE = 0.5;
export const DEFAULT_BLANK_MIN_CONFIDENCE = 0.9;
/** Below the minimums a reading may still confirm a right answer, down to these floors. */
export const CORRECT_FLOOR = 0.6;
export const CORRECT_CHAR_FLOOR = 0.3;
/** Confidence taken off for each look-alike the normaliser had to guess. */
export const LOOKALIKE_PENALTY = 0.05;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * 17÷5 answered 3, 32 or 3.2: the remainder (and its ……) may be on the page and lost by OCR. So
 * may the quotient and the dots: 14÷3 answered 2 (4……2 read as its last digit on an easy page).
 * The quotient alone is all there is when the ink after it is bare paper (`nothingAfter`).
 */
function remainderMaybeLost(p: Extract<Gradable, { kind: 'remainder' }>, nothingAfter = false): boolean {
  const written = withoutUnit(p.studentAnswer, p.unit);
  if (written.includes('……')) return false;
  const digits = written.replace('.', '');
  return (written === String(p.quotient) && !nothingAfter) || written === String(p.remainder) || digits === `${p.quotient}${p.remainder}`;
}

/** Whether another reading of a problem makes the child's answer right, or right but for a remainder OCR may have lost. */
function rightOrRemainderLost(other: Gradable | undefined, opts: GradeOptions, nothingAfter = false): boolean {
  return other !== undefined && (matchAnswer(other, opts).ok || (other.kind === 'remainder' && remainderMaybeLost(other, nothingAfter)));
}

export const OPERATORS: readonly string[] = ['+', '-', '×', '÷'];

/** The problem read with `length` characters of the normalised text at `at` replaced, when it is still arithmetic. */
function readingWith(text: string, at: number, length: number, replacement: string): Gradable | undefined {
  const other = analyseNormalised({ text: text.slice(0, at) + replacement + text.slice(at + length), substitutions: [], source: [] }).problem;
  return other.kind === 'not_arithmetic' || other.kind === 'ambiguous' ? undefined : other;
}

/**
 * Whether the only guesses in the answer are a remainder's dots ("2.·9" read as 2……9), and the
 * answer is wrong with them read as one point or as specks too: then nothing the guess stands for
 * can make it right ("23÷7=2……9").
 */
function wrongWhateverTheDots(a: Analysis, p: Gradable, opts: GradeOptions): boolean {
  const text = a.normalised.text;
  return p.guesses.answer.every((g) => g.to === REMAINDER_DOTS && ['.', ''].every((alt) => !rightOrRemainderLost(readingWith(text, g.at, g.length, alt), opts)));
}

/** Whether the child's answer is right with `length` characters at `at` read as `replacement`. */
function rightAs(text: string, at: number, length: number, replacement: string, opts: GradeOptions): boolean {
  const other = readingWith(text, at, length, replacement);
  return other !== undefined && matchAnswer(other, opts).ok;
}

/**
 * Whether another reading of something the normaliser guessed in the question (x for ×, : for
 * ÷, 一 for -, a space or 。 dropped between digits) turns the child's answer right: then a
 * "wrong" answer may be the lamp's misreading.
 */
function rightUnderAnotherReading(a: Analysis, p: Gradable, opts: GradeOptions, confirmed: ReadonlySet<number>): boolean {
  const text = a.normalised.text;
  for (const g of p.guesses.question) {
    const from = a.normalised.source[g.at];
    if (from && confirmed.has(from[0])) continue;
    // A guessed operator may be another operator; a dropped mark between digits may be a
    // decimal point or an operator.
    const replaced = g.length === 1 && OPERATORS.includes(g.to);
    if (!replaced && !(g.length === 0 && g.from !== '')) continue;
    for (const alt of replaced ? OPERATORS : ['.', ...OPERATORS]) if (alt !== g.to && rightAs(text, g.at, g.length, alt, opts)) return true;
  }
  return false;
}

/** Whether the child's answer is right when one +, × or ÷ of the question is read as "-". */
function rightBySubtracting(a: Analysis, opts: GradeOptions): boolean {
  const text = a.normalised.text;
  for (let i = 0; i < text.length; i++) if ('+×÷'.includes(text[i] as string) && rightAs(text, i, 1, '-', opts)) return true;
  return false;
}

/**
 * Whether a "1" between digits is a fraction bar the recogniser misread, in a problem with
 * fractions: "2/7+4/7=6/7" read as "217+4/7=6/7" (seen on a hard synthetic page) or "…=617".
 */
function rightIfFractionBarMisread(a: Analysis, opts: GradeOptions): boolean {
  const text = a.normalised.text;
  if (!text.includes('/')) return false;
  for (let i = 1; i < text.length - 1; i++) {
    if (text[i] === '1' && /\d/.test(text[i - 1] as string) && /\d/.test(text[i + 1] as string) && rightAs(text, i, 1, '/', opts)) return true;
  }
  return false;
}

/**
 * Operators the recogniser mistakes for each other on photographed pages even when it is sure
 * (measured on the synthetic pages: ÷ whose dots blur away reads as + or -, a small × as +, a +
 * whose upright blurs away as -, a short - as a point: "8×6-25=23" read as "8×6.25=23").
 */
const OCR_CONFUSABLE: Record<string, readonly string[]> = { '+': ['÷', '×'], '-': ['÷', '+'], '×': ['+'], '÷': ['+', '-'], '.': ['-'] };

/**
 * Whether reading one printed operator as its look-alike makes the child's answer right.
 * `confirmed`: positions in the raw text whose operator the ink confirms.
 */
function rightIfOperatorMisread(a: Analysis, opts: GradeOptions, ink: Pick<GradeInput, 'inkConfirmed' | 'inkRuledOut' | 'nothingAfterAnswer'>): boolean {
  const text = a.normalised.text;
  for (let i = 0; i < text.length; i++) {
    const from = a.normalised.source[i];
    if (from && ink.inkConfirmed?.has(from[0])) continue;
    const ruledOut = from && ink.inkRuledOut?.get(from[0]);
    for (const alt of OCR_CONFUSABLE[text[i] as string] ?? []) {
      if (alt === ruledOut || (NOT_BETWEEN_FRACTIONS.includes(alt) && betweenFractions(text, i))) continue;
      if (rightOrRemainderLost(readingWith(text, i, 1, alt), opts, ink.nothingAfterAnswer)) return true;
    }
  }
  return false;
}

/** Operators grades 1–3 never apply to two fractions. */
const NOT_BETWEEN_FRACTIONS = ['×', '÷'];

/**
 * Whether the operator at `at` stands between two fractions ("1/3+1/3"). Children in grades 1–3
 * only add and subtract fractions (of the same denominator); multiplying and dividing them come
 * in grade 6, so a sign there read as + or - is not taken for × or ÷.
 */
function betweenFractions(text: string, at: number): boolean {
  return /\d\/\d+$/.test(text.slice(0, at)) && /^\d+\/\d/.test(text.slice(at + 1));
}

/**
 * 2.5-0.1 answered 24, 0.1+0.1 answered 02 or 2, 0.2+0.9 answered 1: the decimal point is a dot
 * OCR easily loses, and what follows it sometimes goes with it. The other way round, a speck
 * between two digits reads as a point: 65 read as 6.5.
 */
function decimalPointMisread(p: Gradable): 'decimal_point_maybe_lost' | 'decimal_point_maybe_spurious' | undefined {
  const right = correctAnswer(p);
  const written = withoutUnit(p.studentAnswer, p.unit);
  const digits = (s: string): string => s.replace('.', '').replace(/^0+(?=\d)/, '');
  if (right === null || right.includes('.') === written.includes('.')) return undefined;
  if (!right.includes('.')) return digits(written) === right ? 'decimal_point_maybe_spurious' : undefined;
  return digits(written) === digits(right) || written === right.split('.')[0] ? 'decimal_point_maybe_lost' : undefined;
}

/**
 * "0.1+0.2=03": nobody writes a leading zero, and in a problem with decimals the only number an
 * answer can begin with "0" and a digit is "0." and that digit — its point is what the recogniser
 * lost (a blurred handwritten point, 4 of the 14 lost points on 40 hard synthetic pages).
 */
function rightWithPointAfterZero(a: Analysis, p: Gradable, opts: GradeOptions): boolean {
  const end = a.normalised.text.indexOf('=');
  if (p.kind === 'compare' || end < 0 || !a.normalised.text.slice(0, end).includes('.') || !/^0\d/.test(withoutUnit(p.studentAnswer, p.unit))) return false;
  return matchAnswer({ ...p, studentAnswer: p.studentAnswer.replace(/^0/, '0.') }, opts).ok;
}

/**
 * "12+0.6=18" for 1.2+0.6=1.8: in a problem with decimals, a point lost from a whole number of
 * the question — and perhaps from the answer too — may make the answer right.
 */
function rightIfPointLost(a: Analysis, opts: GradeOptions): boolean {
  const text = a.normalised.text;
  const end = text.indexOf('=');
  if (end < 0 || !text.includes('.')) return false;
  const answer = /^\d{2,}$/.test(text.slice(end + 1)) ? text.length - end - 1 : 0;
  const withPoint = (t: string, at: number): string => t.slice(0, at) + '.' + t.slice(at);
  for (const m of text.slice(0, end).matchAll(/(?<![\d.])\d{2,}(?![\d.])/g)) {
    for (let k = 1; k < m[0].length; k++) {
      const question = withPoint(text, (m.index as number) + k);
      const readings = [question, ...Array.from({ length: Math.max(0, answer - 1) }, (_, j) => withPoint(question, question.length - answer + 1 + j))];
      if (readings.some((t) => rightAs(t, 0, 0, '', opts))) return true;
    }
  }
  return false;
}

/**
 * Whether a 0 in a longer answer read as a 6, 9 or 8 (a handwritten loop blurred shut) makes it
 * right. A lone 0 has its own rule (the child may have subtracted).
 */
function zeroMayBeLoop(p: Gradable, opts: GradeOptions): boolean {
  const written = p.studentAnswer;
  if (written.length < 2) return false;
  for (let i = 0; i < written.length; i++) {
    if (written[i] !== '0') continue;
    for (const d of ['6', '9', '8']) if (matchAnswer({ ...p, studentAnswer: written.slice(0, i) + d + written.slice(i + 1) } as Gradable, opts).ok) return true;
  }
  return false;
}

/**
 * Whether `sign` between two digits of the question, lost by the recogniser, makes the answer
 * right: 3×3+19=28 read as 33+19=28 (the small × blurs away; a + or ÷ does not), 4/7+1/7=5/7 read
 * as 47+1/7=5/7. After the cut the number must be 2 or more, and so must the one before it for a
 * ×: with a 0 or a 1 cut off it fits too many answers (50-2×0-10 = 40). Any operator would fit a
 * wrong answer too often: 6+8+3 for "68+3=17" (5 of 93 wrong answers on 30 hard pages).
 * `skipBlank`: a fill-in blank's digits are the child's, with no printed sign between them.
 */
function rightIfLost(a: Analysis, opts: GradeOptions, sign: '×' | '/', skipBlank = false): boolean {
  const text = a.normalised.text;
  const end = text.indexOf('=');
  const blank = skipBlank ? /\(\d+\)/.exec(text) : null;
  for (let i = 1; i < end; i++) {
    if (blank && i > blank.index && i < blank.index + blank[0].length) continue;
    const left = /\d+$/.exec(text.slice(0, i))?.[0];
    const right = /^\d+/.exec(text.slice(i))?.[0];
    if (!left || !right || (sign === '×' && Number(left) < 2) || Number(right) < 2 || right.startsWith('0')) continue;
    if (rightAs(text, i, 0, sign, opts)) return true;
  }
  return false;
}

/**
 * Only a division has a remainder: "43+6=7……1" is 43÷6 with its dots lost. The one + or - of
 * such a problem is read as ÷, and counted as a guessed look-alike.
 */
function divisionFromRemainder(text: string): string | undefined {
  const t = normaliseMath(text);
  const m = /^(\d+)([+-])(\d+)=(\d+……\d+)$/.exec(t);
  return m ? `${m[1]}÷${m[3]}=${m[4]}` : undefined;
}

/** Grades one problem's OCR text. See the module comment for the rules. */
export function gradeProblem(input: GradeInput, opts: GradeOptions = {}): GradeResult {
  const division = divisionFromRemainder(input.text);
  if (division) {
    const r = gradeText({ ...input, confidence: Math.max(0, input.confidence - LOOKALIKE_PENALTY) }, division, opts);
    return r.verdict === 'incorrect' ? { ...r, verdict: 'uncertain', reason: 'look_alike_in_question' } : r;
  }
  return gradeText(input, input.text, opts);
}

function gradeText(input: GradeInput, text: string, opts: GradeOptions): GradeResult {
  const minConfidence = opts.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  const minChar = opts.minCharConfidence ?? DEFAULT_MIN_CHAR_CONFIDENCE;
  const blankMin = Math.max(opts.blankMinConfidence ?? DEFAULT_BLANK_MIN_CONFIDENCE, minConfidence);
  const a = analyseProblem(text);
  const p = a.problem;
  if (p.kind === 'not_arithmetic') {
    return { question: text.trim(), student_answer: '', correct_answer: null, verdict: 'uncertain', confidence: round3(input.confidence), reason: 'not_arithmetic', kind: p.kind };
  }
  if (p.kind === 'ambiguous') {
    return { question: a.normalised.text, student_answer: '', correct_answer: null, verdict: 'uncertain', confidence: round3(input.confidence), reason: p.reason, kind: p.kind };
  }
  const guessCount = p.guesses.question.length + p.guesses.answer.length;
  const confidence = round3(Math.max(0, input.confidence - LOOKALIKE_PENALTY * guessCount));
  const result = (verdict: Verdict, reason?: string): GradeResult => ({
    question: p.question,
    student_answer: p.studentAnswer,
    correct_answer: correctAnswer(p),
    verdict,
    confidence,
    ...(reason ? { reason } : {}),
    kind: p.kind,
  });

  const unsure = input.confidence < minConfidence ? 'low_confidence' : input.minCharConfidence !== undefined && input.minCharConfidence < minChar ? 'low_char_confidence' : undefined;
  const floorsMet = input.confidence >= CORRECT_FLOOR && (input.minCharConfidence ?? 1) >= CORRECT_CHAR_FLOOR;
  // Bare paper where the answer goes settles a blank (rule 3) however shakily the question was
  // read: nothing the child wrote depends on it (five unanswered problems on 80 hard synthetic
  // pages, their "=" or sign read at 0.4–0.6). Not a fill-in bracket, whose paper needs a sure reading.
  const blankOnPaper = input.blankSeen === true && floorsMet && p.studentAnswer === '' && p.kind !== 'fill_blank';
  if (unsure && !blankOnPaper) {
    // A shaky reading that lands exactly on the right answer is far more likely the child's
    // right answer than a misreading; one that does not is never called wrong.
    const right = floorsMet && p.studentAnswer !== '' && !p.unitMismatch && p.guesses.answer.length === 0 && matchAnswer(p, opts).ok;
    if (right) return result('correct', unsure);
    const wrong = unsure === 'low_char_confidence' && floorsMet && text === input.text ? wrongHoweverWeakCharsRead(input, opts) : undefined;
    return wrong ?? result('uncertain', unsure);
  }
  if (p.studentAnswer === '') {
    // Something read where the answer goes that is no answer is not nothing: "2÷2=!" for a
    // blurred handwritten 1, "3÷2=." for 1……1 (right answers marked blank on hard synthetic
    // pages). A remainder's blank may be printed as brackets and dots ("17÷5=(  )……(  )").
    const after = /[=＝]([^=＝]*)$/.exec(text)?.[1] ?? '';
    if (p.kind === 'expression' ? /\S/.test(after) : p.kind === 'remainder' && /[^\s()（）…]/.test(after)) return result('uncertain', 'unreadable_answer');
    // An empty bracket is often the recogniser moving its content elsewhere ("( 9 )×2=18" read as
    // "()×2=189"): never called blank from the reading alone. Bare paper seen in the ink is
    // blank (the reading is already above `minConfidence` here).
    const sure = input.blankSeen
      ? p.kind !== 'fill_blank' || input.confidence >= blankMin
      : input.confidence >= blankMin && p.guesses.answer.length === 0 && p.kind !== 'fill_blank';
    return sure ? result('incorrect', 'blank') : result('uncertain', 'blank_maybe_unread');
  }
  if (p.unitMismatch) return result('uncertain', 'unit_conversion');
  const match = matchAnswer(p, opts);
  if (match.ok) {
    if (opts.strictLookalikeAnswers && p.guesses.answer.length > 0) return result('uncertain', 'look_alike_in_answer');
    return result('correct');
  }
  if (!match.readable) return result('uncertain', match.reason);
  if (p.guesses.answer.length > 0 && !wrongWhateverTheDots(a, p, opts)) return result('uncertain', 'look_alike_in_answer');
  if (p.kind === 'remainder' && remainderMaybeLost(p, input.nothingAfterAnswer)) return result('uncertain', 'remainder_not_read');
  if (rightWithPointAfterZero(a, p, opts)) return result('correct', 'decimal_point_put_back');
  const point = decimalPointMisread(p);
  if (point) return result('uncertain', point);
  // Nobody writes 64 as "04": a leading zero is a digit the recogniser misread.
  if (p.kind !== 'compare' && /^0\d/.test(withoutUnit(p.studentAnswer, p.unit))) return result('uncertain', 'answer_misread');
  // Nor a wrong 0: a blurred handwritten 6 or 9, or a 50 that lost its 5, reads as 0 (three of
  // the false alarms left on hard synthetic pages) — unless the child subtracted (0 for 4÷4).
  if (p.kind === 'expression' && withoutUnit(p.studentAnswer, p.unit) === '0' && !rightBySubtracting(a, opts)) return result('uncertain', 'answer_misread');
  // Inside a longer number too: "16" read as "10" on a hard synthetic page was marked wrong.
  if (p.kind !== 'compare' && zeroMayBeLoop(p, opts)) return result('uncertain', 'answer_misread');
  // A bracket the lamp put back: whatever else OCR lost is unknown — except the "(" of a fill-in
  // blank that opens the problem ("53)-40=14"): the recogniser drops it beside the child's digits
  // (5 problems on 60 easy and medium pages), and it can go nowhere else.
  const opensBlank = (g: Substitution): boolean => p.kind === 'fill_blank' && g.to === '(' && g.at === 0;
  if (p.guesses.question.some((g) => g.from === '' && g.length === 0 && !opensBlank(g))) return result('uncertain', 'bracket_guessed');
  const confirmed = text === input.text ? (input.inkConfirmed ?? new Set<number>()) : new Set<number>();
  if (rightUnderAnotherReading(a, p, opts, confirmed)) return result('uncertain', 'look_alike_in_question');
  if (rightIfPointLost(a, opts)) return result('uncertain', 'decimal_point_maybe_lost');
  // Not for comparisons: with three possible signs some other reading nearly always fits.
  if (p.kind !== 'compare' && rightIfOperatorMisread(a, opts, text === input.text ? input : { nothingAfterAnswer: input.nothingAfterAnswer })) return result('uncertain', 'operator_may_be_misread');
  if (p.kind !== 'compare' && rightIfLost(a, opts, '×', p.kind === 'fill_blank' && input.blankWrittenByChild === true)) return result('uncertain', 'operator_may_be_lost');
  if (rightIfFractionBarMisread(a, opts)) return result('uncertain', 'fraction_bar_may_be_misread');
  if (a.normalised.text.includes('/') && rightIfLost(a, opts, '/')) return result('uncertain', 'fraction_bar_may_be_lost');
  // A fraction answer to a question read without one: its bars were lost ("4/7+1/7=5/7" read as "47+17=5/7").
  if (p.kind !== 'compare' && p.studentAnswer.includes('/') && !p.question.includes('/')) return result('uncertain', 'fraction_bar_may_be_lost');
  if (confidence < minConfidence) return result('uncertain', 'low_confidence');
  return result('incorrect', match.reason);
}

/**
 * Whether another reading of a problem leaves its answer possibly right: correct, or uncertain
 * with something written. Readings that are no problem, leave nothing written or break the
 * printed brackets do not count.
 */
export function mayBeRight(g: GradeResult): boolean {
  return g.verdict === 'correct' || (g.verdict === 'uncertain' && g.student_answer !== '' && g.kind !== 'not_arithmetic' && g.kind !== 'ambiguous' && g.reason !== 'bracket_guessed');
}

/** At most this many weak characters are read every way; a line with more stays uncertain. */
const MAX_WEAK_CHARS = 3;

/**
 * The reading graded as sure when it is wrong under every reading of its weak characters (rule 2);
 * undefined when some reading could make the answer right or nothing is written.
 */
function wrongHoweverWeakCharsRead(input: GradeInput, opts: GradeOptions): GradeResult | undefined {
  const weak = [...(input.weakChars ?? [])].sort((a, b) => b.at - a.at);
  if (weak.length === 0 || weak.length > MAX_WEAK_CHARS) return undefined;
  const sure: GradeInput = { ...input, minCharConfidence: undefined, weakChars: undefined };
  const asRead = gradeText(sure, input.text, opts);
  if (asRead.verdict !== 'incorrect' || asRead.student_answer === '') return undefined;
  const reads = weak.map((w) => (input.text.startsWith(REMAINDER_DOTS, w.at) ? REMAINDER_DOTS : (input.text[w.at] as string)));
  const choices = weak.map((w, i) => {
    const read = reads[i] as string;
    // A digit or point may be a speck or a neighbour's read into the line (also a point the ink
    // took for a minus), a remainder's dots one point or specks; printed signs are not left out.
    const leftOut = /^[\d.]$/.test(read) || w.runnerUp === '.' ? [''] : read === REMAINDER_DOTS ? ['.', ''] : [];
    return [...new Set([read, ...leftOut, ...(w.runnerUp === undefined ? [] : [w.runnerUp]), ...(OPERATORS.includes(normaliseMath(read)) ? OPERATORS : [])])];
  });
  // Every combination of choices; the weak characters go from the right so positions hold.
  const readings = choices.reduce<string[][]>((acc, options) => acc.flatMap((picked) => options.map((o) => [...picked, o])), [[]]);
  for (const picked of readings) {
    const text = weak.reduce((t, w, i) => t.slice(0, w.at) + picked[i] + t.slice(w.at + (reads[i] as string).length), input.text);
    if (text === input.text) continue;
    if (mayBeRight(gradeText(sure, text, opts))) return undefined;
  }
  return asRead;
}

export { splitProblems } from './arithmetic-split.js';
export { analyseProblem, parseProblem, type Problem, type ProblemKind, type Relation, type AmbiguousReason, type Guesses } from './arithmetic-parse.js';
export { normaliseMath, normaliseMathDetailed, type Substitution, type NormalisedMath } from './normalise.js';
export { correctAnswer, matchAnswer } from './arithmetic-answer.js';
export type { Rational };
