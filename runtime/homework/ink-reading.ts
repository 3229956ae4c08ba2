/**
 * What the ink of a flattened homework page says where the recogniser read too little or too
 * much: operators and signs read from their shapes, an "=" or a remainder's dots put back, comparison
 * circles' signs put into their lines, and lines whose reading cannot be trusted to condemn.
 * Everything the ink supplies instead of the recogniser is a doubtful character (`INK_GUESSED`),
 * except a comparison's sign, whose guess from the ink was measured right (`GUESSED_CIRCLE_SIGN`),
 * and what the ink vouches for (`INK_VOUCHED`).
 */
import type { Mat } from '../../models/cv.js';
import type { OcrLine } from '../../models/ocr/index.js';
import { type Circle, equalsSigns, guessCircleSign, hasDotsAboveAndBelow, isBareBar, isDiagonalCross, isMidHeightDot, isPrintedMark, lacksCrossing, readCircleSign, signWindow } from '../../models/page/index.js';
import type { OperatorReading, OperatorShapes } from '../../models/page/operator-shape.js';
import { CORRECT_CHAR_FLOOR, DEFAULT_MIN_CHAR_CONFIDENCE } from '../../scenes/homework/arithmetic.js';

/**
 * An OCR character with what its ink says: `sure` when it confirms the reading, `alt` another
 * reading it supports, `someSign` for a sign put back where one must stand (beside a bracket):
 * which sign is the guess, not that there is one.
 */
export type Char = OcrLine['chars'][number] & { sure?: true; alt?: string; ruledOut?: string; someSign?: true };

/**
 * A character read from the ink where the recogniser read another (an "=" put back, a + read as
 * ÷) is a doubtful character: it can confirm a right answer (above the grader's floor) but not
 * call one wrong (below its minimum) — unless the answer is wrong however it is read (the grader's
 * weak characters: a sign read as every operator, a remainder's dots as dots, a point or nothing).
 */
export const INK_GUESSED = (CORRECT_CHAR_FLOOR + DEFAULT_MIN_CHAR_CONFIDENCE) / 2;

/**
 * A character the ink vouched for (a printed "=", a × whose ink is a cross of diagonals): just
 * what the grader needs to call a problem wrong, and no more.
 */
export const INK_VOUCHED = DEFAULT_MIN_CHAR_CONFIDENCE;

/**
 * A line the flattened page may have spoilt (see doubtedLines): its reading can confirm a right
 * answer, never condemn one. Below every character the ink supplies, so that the floor is told
 * apart from them (a line whose lowest character is its floor was lowered as a whole).
 */
export const DOUBTED_LINE = (CORRECT_CHAR_FLOOR + INK_GUESSED) / 2;

/** Below any grading threshold: a circle whose sign could not be read leaves its problem uncertain. */
export const UNREAD_SIGN_CONFIDENCE = 0.2;

/** A character the ink puts where the recogniser read another: a guess, with none of the recogniser's choices (a minus read as a point keeps the point). */
const guessed = (c: Char, text: string, confidence = INK_GUESSED): Char => ({ text, confidence, x0: c.x0, x1: c.x1 });

/**
 * The operators of a line, looked at in the ink. Where the operator-shape classifier (`shapes`)
 * is sure of a sign, that sign is taken, and is sure (a + only taken: see `signByShape`): the
 * recogniser reads a ÷ whose dots blurred away as + or -, and a + whose upright faded as -.
 * Otherwise the shapes are measured: where the
 * ink has a bar with a dot above and below, it is ÷ (and sure; only another reading of a + the
 * classifier leans to). A - that is a bare bar is sure,
 * and so is an x or × whose ink is a cross of diagonals. A + whose strokes do not cross keeps its
 * reading with ÷ as another one.
 * An "=" the recogniser lost is put back, or vouched for when it hardly believed it (see
 * `lostEquals`); a remainder's "……" read as one point or dropped, and a minus read as one
 * point, are put back (see `remainderDots`, `droppedDots`, `minusReadAsPoint`). A first operator
 * read as 元 is read from its shape before all that (`operatorReadAsYuan`), so that a lost "="
 * after it is found as in any sum, and its sign is then measured like one the recogniser read.
 */
export function readSignsFromInk(page: Mat, read: OcrLine, shapes?: Pick<OperatorShapes, 'classify'>): OcrLine {
  const line = shapes ? operatorReadAsYuan(page, read, shapes) : read;
  const equals = lostEquals(page, line, shapes);
  const shaky = line.chars.some((c) => c.text === '=' && c.confidence < INK_GUESSED) ? equalsSigns(page, line.box) : [];
  // An "=" the ink puts back or vouches for is a guess — unless the operator-shape classifier is
  // sure of it too (two measures of the ink agree: read, at the classifier's confidence), or it
  // is print in a line whose answer is in the pen's colour: then it is no child's mark, and an
  // equals-shaped printed mark where a sum's "=" goes is its "=" (read, though weakly: `INK_VOUCHED`).
  const equalsAt = (x0: number, x1: number): number => {
    const shape = shapes && shapeAt(page, line, x0, x1, shapes);
    if (shape?.sign === '=' && shape.sure) return shape.p;
    return isPrintedMark(page, line.box, x0, x1) ? INK_VOUCHED : INK_GUESSED;
  };
  const chars = line.chars.map((c, i): Char => {
    if (equals?.replace === i) return guessed(c, '=', equals.confidence ?? equalsAt(equals.x0, equals.x1));
    // An "=" the recogniser hardly believed in, where the ink has an equals-shaped mark.
    const mark = c.text === '=' && c.confidence < INK_GUESSED ? shaky.find((s) => s.x0 <= (c.x0 + c.x1) / 2 && (c.x0 + c.x1) / 2 <= s.x1) : undefined;
    if (mark) return { ...c, confidence: equalsAt(mark.x0, mark.x1) };
    if (remainderDots(line, i)) return guessed(c, '……', Math.min(c.confidence, INK_GUESSED));
    // The point read stays the other choice: the grader reads the minus every way, as a point and
    // as nothing (a speck).
    if (minusReadAsPoint(line, i) && isMidHeightDot(page, line.box, c.x0, c.x1)) return { ...guessed(c, '-'), runnerUp: '.' };
    if (!/^[+\-÷x×X]$/.test(c.text)) return c;
    // "28+÷3": the recogniser read one ÷ twice; the cell of the first one is the same ÷.
    if ((c.text === '+' || c.text === '-') && (line.chars[i + 1]?.text === '÷' || line.chars[i - 1]?.text === '÷')) return { ...c, text: '' };
    const look = shapes && shapeAt(page, line, c.x0, c.x1, shapes);
    const shape = look ? signByShape(c, look) : undefined;
    if (shape?.sure) return shape;
    // A + the classifier is sure of is read as one, and measured like any other below.
    const read = shape && shape.alt === undefined ? shape : c;
    // The recogniser reads × as "x" and a cross of diagonals in the ink agrees: sure (a child
    // who added instead of multiplying, 3×3=6, is then wrong, not "maybe misread"). When its
    // doubt was only which way to write a × ("×" or "x"), the ink vouches for the character too;
    // when it was no other operator (a blurred + fills the corners of its box too), the ink makes
    // it a guess, which can confirm a right answer ("7×6=42" with the × read at 0.26, second to
    // 元, was left uncertain on a hard synthetic page).
    if (/^[x×X]$/.test(read.text) && isDiagonalCross(page, line.box, c.x0, c.x1)) {
      const runnerUp = read.runnerUp ?? '';
      const floor = TIMES_LOOKALIKE.test(runnerUp) ? INK_VOUCHED : /^[+\-÷]$/.test(runnerUp) ? 0 : INK_GUESSED;
      return { ...read, confidence: Math.max(read.confidence, floor), sure: true };
    }
    // "Dots" above and below a + the classifier leans to are the ends of its blurred upright
    // ("70+30=100" read as ÷ from its ink on a hard synthetic page, the classifier at + 0.98):
    // ÷ is then only another reading.
    if (!/^[x×X]$/.test(read.text) && hasDotsAboveAndBelow(page, line.box, c.x0, c.x1)) return read.text === '+' && look?.sign === '+' && look.p >= SHAPE_ALT_AT ? { ...read, alt: '÷' } : { ...read, text: '÷', sure: true };
    if (read.text === '-' && isBareBar(page, line.box, c.x0, c.x1)) return { ...read, sure: true };
    if (shape?.alt) return shape;
    if (read.text === '+' && lacksCrossing(page, line.box, c.x0, c.x1)) return { ...read, alt: '÷' };
    return read;
  });
  // Characters put in before the one at their index (or after the last): a lost "=", a remainder's dropped dots.
  const inserts = new Map<number, Char>();
  if (equals?.insertBefore !== undefined) inserts.set(equals.insertBefore, { text: '=', confidence: equalsAt(equals.x0, equals.x1), x0: equals.x0, x1: equals.x1 });
  if (shapes) for (const [at, sign] of droppedSigns(page, line, chars, shapes)) if (!inserts.has(at)) inserts.set(at, sign);
  const dots = droppedDots(line, chars, equals?.insertBefore);
  if (dots !== undefined) inserts.set(dots, { text: '……', confidence: INK_GUESSED, x0: (chars[dots - 1] as Char).x1, x1: (chars[dots] as Char).x0 });
  if (inserts.size === 0 && chars.every((c, i) => c === line.chars[i])) return line;
  // The line's text is its characters (spaces between them are not characters of the model).
  let text = '';
  let k = 0;
  for (const ch of line.text) {
    if (chars[k] && ch === line.chars[k]?.text) {
      text += (inserts.get(k)?.text ?? '') + (chars[k++] as Char).text;
    } else text += ch;
  }
  const end = inserts.get(chars.length);
  if (end) text += end.text;
  const all = [...chars.flatMap((c, i) => [inserts.get(i), c].filter((x): x is Char => x !== undefined)), ...(end ? [end] : [])];
  // A text that did not line up with its characters is rebuilt from them.
  if (k < line.chars.length) text = all.map((c) => c.text).join('');
  return { ...line, text, chars: all, minCharConfidence: lowestAfterInk(line, all) };
}

/**
 * What the operator-shape classifier says about an operator's window. Sure of a sign: that sign,
 * sure — what the recogniser read, or the sign it mistook (then with the classifier's confidence,
 * as the recogniser's own doubt was about another character). A + it is sure of is read as +
 * but not sure: the costly mistake is a ÷ confirmed as + (a motion-blurred "27÷3=9", read as
 * "27+3u9" on a hard synthetic page, was classed + at 0.9905), and a + not sure keeps the
 * grader's and the ink's look-alike checks — but for ×, which it rules out (`ruledOut`): of the
 * 2,184 × signs harvested for its training, none had a + probability above 0.1. Leaning to
 * another operator (`SHAPE_ALT_AT`) without being sure: the reading stays, with that operator
 * as another reading. Undefined otherwise, and when it sees an "=" (the equals rules above
 * decide those).
 */
function signByShape(c: Char, shape: OperatorReading): Char | undefined {
  if (shape.sign === '=') return undefined;
  const read = c.text.replace(/[xX]/, '×');
  if (!shape.sure) return shape.sign !== read && shape.p >= SHAPE_ALT_AT ? { ...c, alt: shape.sign } : undefined;
  const sure = shape.sign !== '+' ? { sure: true as const } : { ruledOut: '×' };
  if (shape.sign === read) return { ...c, text: shape.sign, confidence: Math.max(c.confidence, shape.p), ...sure };
  return { text: shape.sign, confidence: shape.p, x0: c.x0, x1: c.x1, ...sure };
}

/**
 * A blurred × (or another operator) the recogniser read as 元: "7元8=56", "2元612". Where 元
 * stands as the first operator would — after the first number and before a digit — in a line
 * with no other unit (元 between digits is a price in "1元5角"), the sign the operator-shape
 * classifier is sure of is taken, as `signByShape` takes it for a misread operator; one it only
 * leans to (`SHAPE_ALT_AT`) is a guess, which can confirm a right answer and never condemn one.
 * On 40 hard synthetic pages (12480–12519) six problems had their × read so (the classifier
 * at 0.83–0.99 on ×) and were left unmarked as not arithmetic; five are now marked right.
 */
function operatorReadAsYuan(page: Mat, line: OcrLine, shapes: Pick<OperatorShapes, 'classify'>): OcrLine {
  const at = line.chars.findIndex((c) => !isDigit(c));
  const c = line.chars[at];
  if (at < 1 || c?.text !== '元' || !isDigit(line.chars[at + 1]) || /[角分]/.test(line.text)) return line;
  const look = shapeAt(page, line, c.x0, c.x1, shapes);
  if (!look || look.sign === '=' || look.p < SHAPE_ALT_AT) return line;
  const sign = look.sure ? (signByShape(c, look) as Char) : guessed(c, look.sign);
  const chars = line.chars.map((ch, i) => (i === at ? sign : ch));
  return { ...line, text: line.text.replace('元', sign.text), chars, minCharConfidence: lowestAfterInk(line, chars) };
}

/** What the operator-shape classifier says of the mark centred between x0 and x1 of a line. */
function shapeAt(page: Mat, line: OcrLine, x0: number, x1: number, shapes: Pick<OperatorShapes, 'classify'>): OperatorReading | undefined {
  const window = signWindow(page, line.box, x0, x1);
  return window && shapes.classify(window);
}

/**
 * Signs the recogniser dropped next to a bracket: "7(8)=63" for 7×(8)=63, "(18)12=6" for
 * (18)-12=6, "(94}8=86" for (94)-8=86. Between a digit and "(", or ")" and a digit, a sign must
 * stand; where the classifier puts the mark between them at DROPPED_SIGN_AT or more, that sign
 * is put back, as a guess (it can confirm a right answer, and condemn one only when it is wrong
 * whatever the operator: `someSign`): the window was centred on a gap, not on a sign the
 * recogniser placed, which is not how the classifier was measured. Not after an "=" (a bracket
 * there starts the next problem run into the line), nor in a comparison, where a painted-out
 * circle's ring can read as brackets. On 30 hard pages (11600–11629) the classifier was sure
 * (≥ 0.99) at 8 such places outside comparisons, right at all 8; on 40 more (11630–11669), at
 * 0.9–0.99 at 4 places, right at all 4 (a 5th, at 0.67, was right too). A problem with no
 * operator at all before its "=" lost one between two digits (see signBetweenDigits).
 */
function droppedSigns(page: Mat, line: OcrLine, chars: Char[], shapes: Pick<OperatorShapes, 'classify'>): Map<number, Char> {
  const found = new Map<number, Char>();
  if (chars.some((c) => /^[○<>]$/.test(c.text))) return found;
  for (let i = 1; i < chars.length; i++) {
    const [prev, next] = [chars[i - 1] as Char, chars[i] as Char];
    if (!((isDigit(prev) && OPENING.test(next.text)) || (CLOSING.test(prev.text) && isDigit(next)))) continue;
    // After an "=" comes the answer: a bracket there starts the next problem run into this line.
    if (chars.slice(0, i).some((c) => /^[=＝]$/.test(c.text))) break;
    const shape = shapeAt(page, line, prev.x1, next.x0, shapes);
    if (!shape || shape.p < DROPPED_SIGN_AT) continue;
    found.set(i, { text: shape.sign, confidence: INK_GUESSED, x0: prev.x1, x1: next.x0, ...(OPERATOR.test(shape.sign) ? { someSign: true as const } : {}) });
  }
  const lost = signBetweenDigits(page, line, chars, shapes);
  if (lost) found.set(lost.at, lost.sign);
  return found;
}

/**
 * "84=32" for 8×4=32: a problem with no operator before its "=" lost one between two of its
 * digits. It goes in the widest gap between them, when that gap is at least `LOST_SIGN_GAP` line
 * heights (the recogniser places a number's digits edge to edge; a lost sign left 0.16–0.47 on
 * hard synthetic pages) and the classifier puts the mark there at DROPPED_SIGN_AT or more (as a
 * guess, like the other dropped signs).
 */
function signBetweenDigits(page: Mat, line: OcrLine, chars: Char[], shapes: Pick<OperatorShapes, 'classify'>): { at: number; sign: Char } | undefined {
  const eq = chars.findIndex((c) => /^[=＝]$/.test(c.text));
  if (eq < 2 || chars.slice(0, eq).some((c) => !isDigit(c))) return undefined;
  let at = 1;
  for (let i = 2; i < eq; i++) if (gapBefore(chars, i) > gapBefore(chars, at)) at = i;
  if (gapBefore(chars, at) < LOST_SIGN_GAP * line.box.h) return undefined;
  const [prev, next] = [chars[at - 1] as Char, chars[at] as Char];
  const shape = shapeAt(page, line, prev.x1, next.x0, shapes);
  if (!shape || shape.sign === '=' || shape.p < DROPPED_SIGN_AT) return undefined;
  return { at, sign: { text: shape.sign, confidence: INK_GUESSED, x0: prev.x1, x1: next.x0 } };
}

const LOST_SIGN_GAP = 0.1;
const gapBefore = (chars: Char[], i: number): number => (chars[i] as Char).x0 - (chars[i - 1] as Char).x1;

/** Brackets as the recogniser reads them, blurred round ones as curly or square ("(94}8=86"). */
export const OPENING = /^[(（[{［｛]$/;
export const CLOSING = /^[)）\]}］｝]$/;

/** What the recogniser puts second to a × when its doubt is only how the × is written. */
const TIMES_LOOKALIKE = /^[x×X*＊]$/;

/** The classifier's probability from which a dropped sign is put back (see droppedSigns). */
const DROPPED_SIGN_AT = 0.9;

/**
 * The classifier's leaning that keeps another operator open. On held-out synthetic pages, of the
 * signs it was not sure of but put at 0.6 or more on an operator other than the one read, 28 of
 * 30 were that operator (mostly a ÷ read as +).
 */
const SHAPE_ALT_AT = 0.6;

/**
 * Where a remainder's "……" the recogniser dropped altogether goes ("10÷3=3……1" read as
 * "10+3=31"): between two digits of the answer at least 0.8 line heights apart, in a division (a
 * ÷, or a + that may be one). On 30 hard pages, answer digits read without the dots between them
 * were 0.91–1.58 line heights apart; all 414 other pairs of neighbouring answer digits, under 0.5.
 * `answerFrom`: where an "=" is being put back, the answer starts there.
 */
function droppedDots(line: OcrLine, chars: Char[], answerFrom?: number): number | undefined {
  if (!chars.some((c) => c.text === '÷' || c.alt === '÷')) return undefined;
  const from = answerFrom ?? chars.findIndex((c) => c.text === '=') + 1;
  if (from <= 0 || chars.slice(from).some((c) => !/^\d?$/.test(c.text))) return undefined;
  for (let i = from + 1; i < chars.length; i++) {
    if (isDigit(chars[i - 1]) && isDigit(chars[i]) && (chars[i] as Char).x0 - (chars[i - 1] as Char).x1 >= REMAINDER_GAP * line.box.h) return i;
  }
  return undefined;
}

/** The lowest confidence of the characters that are not spaces (Infinity when there are none). */
const lowestOf = (chars: Char[]): number => Math.min(...chars.filter((c) => c.text.trim() !== '').map((c) => c.confidence));

/**
 * A confidence the line was lowered to below all its characters (an unread circle sign, a line
 * doubted as a whole): it stays with whatever is read into the line or cut from it.
 */
export function lineFloor(line: OcrLine): number | undefined {
  return line.minCharConfidence < lowestOf(line.chars) ? line.minCharConfidence : undefined;
}

/**
 * The line's lowest character confidence after the ink put back or vouched for characters: the
 * doubtful ones count, what the recogniser read in their place does not; the line's floor stays.
 */
function lowestAfterInk(line: OcrLine, chars: Char[]): number {
  return Math.min(lineFloor(line) ?? 1, lowestOf(chars));
}

/**
 * Whether the "." at `i` is a remainder's "……" read as one point: it stands between two digits
 * of the answer that are at least 0.8 line heights apart. A decimal point leaves the digits
 * 0.3–0.4 apart, the dots of "7……3" 1.1 or more (synthetic pages, as the recogniser places them).
 */
function remainderDots(line: OcrLine, i: number): boolean {
  const [prev, dot, next] = [line.chars[i - 1], line.chars[i], line.chars[i + 1]];
  if (!dot || !/^[.·。]$/.test(dot.text) || !isDigit(prev) || !isDigit(next)) return false;
  const operator = line.chars.findIndex((c) => OPERATOR.test(c.text));
  return operator >= 0 && operator < i - 2 && (next as Char).x0 - (prev as Char).x1 >= REMAINDER_GAP * line.box.h;
}

/** Digits of an answer this many line heights apart have a remainder's dots between them. */
export const REMAINDER_GAP = 0.8;

/**
 * Whether the "." at `i` may be a "-" the recogniser read as a point ("40.4=36", "8×9.29=43"):
 * between digits, before the "=". The ink decides (`isMidHeightDot`).
 */
function minusReadAsPoint(line: OcrLine, i: number): boolean {
  const chars = line.chars;
  const equals = chars.findIndex((c) => c.text === '=' || c.text === '＝');
  return /^[.·]$/.test(chars[i]?.text ?? '') && equals > i + 1 && isDigit(chars[i - 1]) && isDigit(chars[i + 1]);
}

export const OPERATOR = /^[+\-×÷xX]$/;
/** An equals or comparison sign: a problem's relation. */
export const RELATION = /^[=＝<>○]$/;
export const isDigit = (c: Char | undefined): boolean => c !== undefined && /^\d$/.test(c.text);

/**
 * Where a lost "=" goes: in place of the character at `replace`, or before the one at `insertBefore`
 * (after the last one when that is the number of characters); x its ink's span; `confidence` when it is set by how the place was found (else see equalsAt).
 */
type EqualsPlace = { replace?: number; insertBefore?: number; x0: number; x1: number; confidence?: number };

/**
 * The "=" of a sum the recogniser lost on a blurred page: read as 元, 年 or m (its two bars
 * joined by blur look like neither - nor =), read as "-" ("8+9-7") or another operator
 * (`readForEquals`), or dropped ("9+1019"). In a
 * line with an operator and no "=" or comparison, a look-alike between digits after the operator
 * is the "="; otherwise, after the operator, the one place where the ink has an equals-shaped
 * mark (`equalsSigns`) and the recogniser read a look-alike or nothing between two digits; and
 * where the ink shows no such mark, the one character between digits that the operator-shape
 * classifier is sure is an "=" (on 40 hard pages 11840–11879 it put back 6, read as 0, 一 or ~, all right).
 * An unanswered problem's "=" at the end of its line is found by `equalsAtEnd`.
 */
function lostEquals(page: Mat, line: OcrLine, shapes?: Pick<OperatorShapes, 'classify'>): EqualsPlace | undefined {
  const chars = line.chars;
  if (chars.some((c) => RELATION.test(c.text))) return undefined;
  const firstOperator = chars.findIndex((c) => OPERATOR.test(c.text));
  if (firstOperator < 0) return undefined;
  // Between two digits after the operator, with only the answer after it ("…=1.5", "…=3……2");
  // the recogniser may read a space before the answer ("43+54± 97").
  const between = (i: number, next = i + 1): boolean => {
    const after = chars.slice(next);
    return i > firstOperator + 1 && isDigit(chars[i - 1]) && isDigit(after.find((c) => c.text.trim() !== '')) && after.every((c) => /^[\d.·。…/\s]$/.test(c.text));
  };
  const lookalike = chars.findIndex((c, i) => EQUALS_LOOKALIKES.includes(c.text) && between(i));
  if (lookalike >= 0) return { replace: lookalike, x0: (chars[lookalike] as Char).x0, x1: (chars[lookalike] as Char).x1 };
  const places = equalsSigns(page, line.box).flatMap((sign): EqualsPlace[] => {
    const mid = (sign.x0 + sign.x1) / 2;
    const over = chars.findIndex((c) => c.x0 <= mid && mid <= c.x1);
    if (over >= 0 && readForEquals(page, line, chars[over] as Char) && between(over)) return [{ replace: over, ...sign }];
    const next = chars.findIndex((c) => c.x0 > mid);
    if (next > firstOperator + 1 && (over < 0 || over === next - 1) && (chars[next - 1] as Char).x1 < mid && between(next, next)) return [{ insertBefore: next, ...sign }];
    return [];
  });
  if (places.length === 1) return places[0];
  const end = places.length === 0 ? equalsAtEnd(page, line, firstOperator, shapes) : undefined;
  if (end) return end;
  if (places.length > 1 || !shapes) return undefined;
  // Bars blurred too far for their shape to be measured ("6×9=54" read as "6×9054"): the one
  // character between digits the operator-shape classifier is sure is an "=" — a guess, as the
  // classifier is then the only measure of the ink (and the character may be a digit).
  const shaped = chars.flatMap((c, i): EqualsPlace[] => {
    if (!between(i)) return [];
    const shape = shapeAt(page, line, c.x0, c.x1, shapes);
    return shape?.sign === '=' && shape.sure ? [{ replace: i, x0: c.x0, x1: c.x1, confidence: INK_GUESSED }] : [];
  });
  return shaped.length === 1 ? shaped[0] : undefined;
}

/**
 * The "=" of a problem left unanswered, at the end of its line after a digit: read as a
 * look-alike ("9×2m"), or as a character `readForEquals` allows ("36+4*", "54÷6-") where the ink
 * has an equals-shaped mark over it or the classifier is sure of an "=" (eight blanks on 80 hard
 * pages), or dropped where the ink has an equals-shaped mark just right of the last
 * digit ("22÷5", the "=" blurred at the edge of the recogniser's crop). Only in a line of digits,
 * operators, brackets and points: in "5元+3元-8元" the last 元 is a unit.
 */
function equalsAtEnd(page: Mat, line: OcrLine, firstOperator: number, shapes?: Pick<OperatorShapes, 'classify'>): EqualsPlace | undefined {
  const chars = line.chars;
  const last = chars.length - 1;
  const c = chars[last] as Char;
  if (!chars.slice(0, last).every((ch) => /^[\d+\-×÷xX()（）.]$/.test(ch.text))) return undefined;
  const h = line.box.h;
  const beyond = { ...line.box, w: Math.min(line.box.w + END_REACH * h, page.cols - line.box.x) };
  if (last > firstOperator + 1 && isDigit(chars[last - 1]) && !isDigit(c)) {
    const mid = (c.x0 + c.x1) / 2;
    const shaped = (): boolean => {
      if (!readForEquals(page, line, c)) return false;
      if (equalsSigns(page, beyond).some((m) => m.x0 <= mid && mid <= m.x1)) return true;
      const shape = shapes && shapeAt(page, line, c.x0, c.x1, shapes);
      return shape?.sign === '=' && shape.sure;
    };
    if (EQUALS_LOOKALIKES.includes(c.text) || shaped()) return { replace: last, x0: c.x0, x1: c.x1 };
  }
  if (last <= firstOperator || !isDigit(c)) return undefined;
  const mark = equalsSigns(page, beyond).find((m) => m.x0 > (c.x0 + c.x1) / 2 && m.x1 > c.x1 + 0.15 * h && m.x0 < c.x1 + END_REACH * h);
  return mark && { insertBefore: chars.length, ...mark };
}

/** How far right of a line's last character, in line heights, its lost "=" may stand. */
const END_REACH = 0.8;

/** What the recogniser reads for a blurred "=" (measured on the synthetic hard pages). */
const EQUALS_LOOKALIKES = ['元', '年', 'm'];
/**
 * Whether the recogniser may have read an equals-shaped mark as this character: a "-", a point
 * or a 0 (bars smeared into a ring: "6×7042", 9 times on 40 hard pages), a small letter or a
 * squiggle ("14-7a7", "27+3u9", "63+9~6", "67+24±91", "8×8-5折59": 7 times on 40 hard pages), or — when its ink has no
 * crossing — a ×, +, * or # ("24+11×35", "55+33+88", "28+6#44").
 * Measured on 30 hard pages: the 14 such characters standing for an "=" had no crossing, the 3
 * real × after a first operator (comparisons whose circle was lost, "9×57×2") had one.
 */
function readForEquals(page: Mat, line: OcrLine, c: Char): boolean {
  if (/^[-.·。0oOau~±折]$/.test(c.text)) return true;
  return /^[×xX*#+]$/.test(c.text) && lacksCrossing(page, line.box, c.x0, c.x1);
}

/**
 * The crowded rings (see comparisonRings) that are comparison circles: a ring where the
 * recogniser read nothing between two numbers (or their brackets) of a line with no comparison
 * or equals sign in it ("58 36" for 58○36 with a big ">" written up to the ring), or read the
 * ring itself as a 0 centred on it ("74026" for 74○26, "36+4040" for 36+4○40: 5 comparisons on
 * 40 unseen hard pages 12720–12759; see ringReadAsZero). A digit's stroke taken for a ring has
 * another character, or a 0 off the ring's centre, read over it (a crowded ring is the size of
 * the page's printed circles, a printed 0 far smaller).
 */
export function circlesInGaps(lines: OcrLine[], rings: Circle[]): Circle[] {
  return rings.filter((c) => {
    const row = lines.filter((l) => c.y >= l.box.y && c.y <= l.box.y + l.box.h).flatMap((l) => l.chars.filter((ch) => ch.text.trim() !== '').map((ch) => ({ ch, l })));
    const over = row.filter(({ ch }) => ch.x0 < c.x && ch.x1 > c.x);
    if (over.length > 1 || (over.length === 1 && !ringReadAsZero((over[0] as (typeof over)[number]).ch, c))) return false;
    const left = row.filter(({ ch }) => ch.x1 <= c.x).sort((a, b) => b.ch.x1 - a.ch.x1)[0];
    const right = row.filter(({ ch }) => ch.x0 >= c.x).sort((a, b) => a.ch.x0 - b.ch.x0)[0];
    if (!left || !right || [left.l, right.l].some((l) => /[=＝<>○]/.test(l.text))) return false;
    const number = (ch: Char): boolean => /^[\d()（）]$/.test(ch.text);
    return number(left.ch) && number(right.ch) && left.ch.x1 >= c.x - GAP_REACH * c.r && right.ch.x0 <= c.x + GAP_REACH * c.r;
  });
}

/** Whether the recogniser read a ring as this character: a 0 (or letter o) centred on it. */
function ringReadAsZero(ch: Char, c: Circle): boolean {
  return /^[0oO〇]$/.test(ch.text) && Math.abs((ch.x0 + ch.x1) / 2 - c.x) < 0.6 * c.r;
}

/** The numbers of a comparison stand within this many radii of its circle's centre. */
const GAP_REACH = 2.5;

/**
 * A sign guessed from its ink's spread in a circle (see guessCircleSign) is just sure enough to
 * call a comparison wrong. On 150 synthetic pages at three levels (seeds 60000–60149), the guess
 * was right at all 82 circles whose sign could not be read from its shape (76 of them a blurred
 * "=", which the shape reads in only 3 of 22 on hard pages).
 */
const GUESSED_CIRCLE_SIGN = DEFAULT_MIN_CHAR_CONFIDENCE;

/** A sign read from its shape in a circle, and the circle itself where its "=" follows it ("42○=24"): the ring was found, whatever is in it. */
const READ_CIRCLE_SIGN = 0.9;

/** A circle with its sign: read from its shape, or else guessed from its ink's spread (then less sure). */
export function signOf(page: Mat, c: Circle): SignedCircle {
  const sign = readCircleSign(page, c);
  if (sign !== undefined) return { ...c, sign };
  const guess = guessCircleSign(page, c);
  return guess ? { ...c, sign: guess, guessed: true } : { ...c, sign: undefined };
}

export type SignedCircle = Circle & { sign: string | undefined; guessed?: boolean };

/**
 * The line a circle belongs to: the one that runs through it, or else — when painting the ring
 * out left a gap the detector split the problem at ("89" | "23") — the nearest one on its row
 * that ends just left of it (the part right of the circle joins it again, see joinFragments).
 */
function circleOwner(lines: OcrLine[], c: SignedCircle): number {
  const onRow = (l: OcrLine): boolean => c.y >= l.box.y && c.y <= l.box.y + l.box.h;
  const through = lines.findIndex((l) => onRow(l) && c.x >= l.box.x - c.r && c.x <= l.box.x + l.box.w + c.r);
  if (through >= 0) return through;
  let owner = -1;
  let nearest = 2.5 * c.r;
  lines.forEach((l, k) => {
    const gap = c.x - (l.box.x + l.box.w);
    if (onRow(l) && gap >= 0 && gap < nearest) [owner, nearest] = [k, gap];
  });
  return owner;
}

/**
 * Puts each comparison circle's sign (or ○ when the sign could not be read, which the grader
 * then leaves uncertain) into its line (see circleOwner), at its place.
 */
export function withCircleSigns(lines: OcrLine[], circles: SignedCircle[]): OcrLine[] {
  const owners = circles.map((c) => circleOwner(lines, c));
  return lines.map((line, k) => {
    const mine = circles.filter((_, i) => owners[i] === k);
    if (mine.length === 0) return line;
    let chars = line.chars.filter((c) => c.text.trim() !== '');
    let unread = false;
    let changed = false;
    for (const c of mine) {
      const own = chars.findIndex((ch) => /[<>=＝]/.test(ch.text) && Math.abs((ch.x0 + ch.x1) / 2 - c.x) < 1.2 * c.r);
      if (own >= 0) {
        // The recogniser read the sign itself. An "=" in a circle is a comparison's answer, not
        // the equals of a sum: the circle goes in front of it ("42○=24"), and what is left of the
        // painted-out ring and still reads as a bracket ("22+26○=)48") goes.
        const sign = chars[own] as OcrLine['chars'][number];
        if (!/[=＝]/.test(sign.text)) continue;
        const ring = (ch: OcrLine['chars'][number]): boolean => ch !== sign && /^[()（）]$/.test(ch.text) && Math.abs((ch.x0 + ch.x1) / 2 - c.x) < 1.5 * c.r;
        chars = chars.filter((ch) => !ring(ch));
        chars.splice(chars.indexOf(sign), 0, { text: '○', confidence: sign.confidence, x0: sign.x0, x1: sign.x0 });
        changed = true;
        continue;
      }
      // A ring read as a 0 (see circlesInGaps) goes, unless nothing is written in it: an empty
      // ring read as a 0 is one (a blank comparison is a blank only when its ring is sure).
      const zero = chars.findIndex((ch) => ringReadAsZero(ch, c));
      if (zero >= 0 && c.sign === '') continue;
      if (zero >= 0) chars.splice(zero, 1);
      // The blurred sign in a circle the recogniser read as a "-": the circle's sign replaces it.
      const dash = c.sign ? chars.findIndex((ch) => /^[-一]$/.test(ch.text) && Math.abs((ch.x0 + ch.x1) / 2 - c.x) < 0.6 * c.r) : -1;
      if (dash >= 0) chars.splice(dash, 1);
      changed = true;
      const at = chars.findIndex((ch) => (ch.x0 + ch.x1) / 2 > c.x);
      // An empty circle is the child's blank ("45○54"), an unreadable one stays ○ but unsure. A
      // sign guessed in a ring known only from the 0 read over it can confirm, not condemn: such
      // rings are crowded, and a blurred "=" in one was guessed "<" (81○81, hard page 12698).
      const guessedAt = zero >= 0 ? INK_GUESSED : GUESSED_CIRCLE_SIGN;
      const sign = { text: c.sign || '○', confidence: c.sign === undefined ? UNREAD_SIGN_CONFIDENCE : c.guessed ? guessedAt : READ_CIRCLE_SIGN, x0: c.x - c.r / 2, x1: c.x + c.r / 2 };
      // An "=" in a circle is the comparison's answer, not a sum's equals: "42○=24".
      chars.splice(at < 0 ? chars.length : at, 0, ...(sign.text === '=' ? [{ ...sign, text: '○', confidence: READ_CIRCLE_SIGN }, sign] : [sign]));
      // A sign that could not be read must not look like a blank answer: the line becomes unsure.
      unread ||= c.sign === undefined;
    }
    if (!changed) return line;
    const x0 = Math.min(line.box.x, ...mine.map((c) => c.x - c.r));
    const x1 = Math.max(line.box.x + line.box.w, ...mine.map((c) => c.x + c.r));
    return { ...line, text: chars.map((c) => c.text).join(''), chars, box: { ...line.box, x: x0, w: x1 - x0 }, minCharConfidence: unread ? Math.min(line.minCharConfidence, UNREAD_SIGN_CONFIDENCE) : line.minCharConfidence };
  });
}

/**
 * Lines whose reading can confirm a right answer but never condemn one, because the page was not
 * flattened well around them:
 * - tilted lines: the page's corners were found wrong there, and the recogniser may have run
 *   rows or problems together ("7+0.9=15" for "0.7+0.9=1.6", "(10+4)=9" for "(10+44)÷6=9" from
 *   two rows in one box). When a fifth of the page's lines are tilted, all are doubted (the merged
 *   box of two rows is itself level). Level lines stay within 4.5° after deskewing (8 hard
 *   synthetic pages); on the two badly flattened pages seen, half were tilted 6–22°.
 * - lines that run into the left or right edge of the flattened page: what was beyond the edge
 *   was cut off ("5+26=71" for "45+26=71").
 */
export function doubtedLines(lines: OcrLine[], pageWidth: number): OcrLine[] {
  const tilts = lines.map((line) => {
    const [a, b] = line.quad;
    return a && b && line.chars.length >= 3 ? Math.abs((Math.atan2(b[1] - a[1], b[0] - a[0]) * 180) / Math.PI) : undefined;
  });
  const measured = tilts.filter((t): t is number => t !== undefined);
  const pageTilted = measured.filter((t) => t > MAX_LINE_TILT_DEG).length > 0.2 * measured.length;
  const atEdge = (line: OcrLine): boolean => line.box.x <= EDGE * pageWidth || line.box.x + line.box.w >= (1 - EDGE) * pageWidth;
  return lines.map((line, i) => (pageTilted || (tilts[i] ?? 0) > MAX_LINE_TILT_DEG || atEdge(line) ? { ...line, minCharConfidence: Math.min(line.minCharConfidence, DOUBTED_LINE) } : line));
}

/** A line this close to the page's side (a share of its width) runs into it: a page's margin is wider. */
const EDGE = 0.01;
const MAX_LINE_TILT_DEG = 6;
