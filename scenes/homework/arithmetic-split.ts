import { matchAnswer } from './arithmetic-answer.js';
import { analyseProblem } from './arithmetic-parse.js';
import { type Token, tokenize } from './arithmetic-tokens.js';
import { normaliseMathDetailed } from './normalise.js';

/**
 * One OCR line of a 口算 drill row → its problems, as raw substrings of the line (the grader
 * normalises each itself, so its look-alike guesses are still seen). The pieces cover every
 * non-space character of the line in order: punctuation between problems stays with the one
 * before it, so a caller can map pieces back to the line's characters by counting.
 *
 * - A wide gap (two or more spaces, a tab, an ideographic space) always separates problems.
 * - Otherwise the grammar decides: after a problem's '=' and answer, an operand followed by an
 *   operator starts the next problem ("23+45=68 7×8=56"). The cut goes at the space or
 *   punctuation before that operand when there is one.
 * - With the spaces lost ("23+45=687×8=56") the digits after '=' hold the answer and the next
 *   operand. The cut goes where the first problem comes out right, if exactly one place does;
 *   otherwise the line is not cut there and the merged piece is ambiguous (uncertain), never a
 *   wrong guess that would mark a child's right answer wrong.
 * - A comparison's right side ends at a space followed by another problem ("45>54 3+4○8").
 * Pure; no I/O.
 */

const isSep = (t: Token | undefined): boolean => t?.type === 'sep';

export function splitProblems(lineText: string): string[] {
  const n = normaliseMathDetailed(lineText, 'line');
  const toks = tokenize(n.text);
  const rawAt = (pos: number): number => (pos >= n.text.length ? lineText.length : (n.source[pos] as readonly [number, number])[0]);
  /** Normalised positions where a new problem starts. */
  const cuts: number[] = [];
  /** A sep that stood for 、 after an item number ("2、7×8=56"). */
  const rawOfSep = (t: Token | undefined): string => (isSep(t) ? lineText.slice(...(n.source[(t as Token).start] as readonly [number, number])) : '');
  const labelSep = (t: Token | undefined): boolean => /^[、．.]$/u.test(rawOfSep(t));
  /** ① ⑴ ⒈: an item number that normalises to a separator. */
  const circledLabel = (t: Token | undefined): boolean => /^[\u2460-\u249b]$/u.test(rawOfSep(t));

  /** Start of the operand that ends at token k (a number, a group, a blank), with an item number before it. */
  const operandStart = (k: number): number => {
    let s = k;
    if (toks[k]?.type === 'close') {
      let depth = 0;
      for (let i = k; i >= 0; i--) {
        if (toks[i]?.type === 'close') depth++;
        if (toks[i]?.type === 'open' && --depth === 0) {
          s = i;
          break;
        }
      }
    }
    // "2/3+1/3": a fraction is one operand.
    if (toks[s]?.type === 'num' && toks[s - 1]?.type === 'slash' && toks[s - 2]?.type === 'num') s -= 2;
    // "(2+6)×3": the brackets the operand opens.
    while (toks[s - 1]?.type === 'open') s--;
    // "(2)7×8": an item number in brackets right before the operand.
    if (toks[s - 1]?.type === 'close' && toks[s - 2]?.type === 'num' && toks[s - 3]?.type === 'open') s -= 3;
    // "2、7×8": an item number before 、.
    else if (labelSep(toks[s - 1]) && toks[s - 2]?.type === 'num') s -= 2;
    else if (circledLabel(toks[s - 1])) s -= 1;
    return s;
  };

  /** Where in the answer digits the next operand begins, when exactly one place makes the first problem right. */
  const digitCut = (fromPos: number, num: Token): number | null => {
    const good: number[] = [];
    for (let k = 1; k < num.text.length; k++) {
      const head = num.text.slice(0, k);
      const tail = num.text.slice(k);
      if (head.endsWith('.') || tail.startsWith('.') || (tail.startsWith('0') && tail.length > 1 && tail[1] !== '.')) continue;
      const p = analyseProblem(lineText.slice(rawAt(fromPos), rawAt(num.start + k))).problem;
      if (p.kind !== 'not_arithmetic' && p.kind !== 'ambiguous' && p.studentAnswer !== '' && matchAnswer(p).ok) good.push(num.start + k);
    }
    return good.length === 1 ? (good[0] as number) : null;
  };

  /** Between two operands with only spaces between them: the last such space after `from` and before `to`. */
  const operandGap = (from: number, to: number): number => {
    let found = -1;
    for (let i = from + 1; i < to; i++) {
      if (!isSep(toks[i])) continue;
      let a = i - 1;
      while (a > from && isSep(toks[a])) a--;
      let b = i + 1;
      while (b < to && isSep(toks[b])) b++;
      const end = toks[a];
      const begin = toks[b];
      if (a > from && b < to && (end?.type === 'num' || end?.type === 'close' || end?.type === 'unit' || end?.type === 'rem') && (begin?.type === 'num' || begin?.type === 'open')) found = b;
    }
    return found;
  };
  /** Whether the tokens from `s` up to the next wide gap hold an '=' or a comparison sign. */
  const signAhead = (s: number): boolean => {
    for (let i = s; i < toks.length && !(isSep(toks[i]) && toks[i]?.text === '\t'); i++) if (toks[i]?.type === 'eq' || toks[i]?.type === 'rel') return true;
    return false;
  };

  let startPos = 0; // normalised position where the current problem starts
  let phase: 'question' | 'answer' | 'right' = 'question';
  let mark = -1; // token index of the problem's '=' or relation
  for (let j = 0; j < toks.length; j++) {
    const t = toks[j] as Token;
    const restart = (at: number): void => {
      startPos = (toks[at] as Token).start;
      cuts.push(startPos);
      phase = 'question';
      mark = -1;
      j = at - 1;
    };
    if (t.type === 'sep' && t.text === '\t') {
      if (j + 1 < toks.length) restart(j + 1);
      continue;
    }
    if (phase === 'question') {
      // "(=)" and "○=" are a comparison answered with '=', not an equation.
      const circled = (toks[j - 1]?.type === 'open' && toks[j + 1]?.type === 'close') || toks[j - 1]?.text === '○' || toks[j + 1]?.text === '○';
      if (t.type === 'eq') phase = circled ? 'right' : 'answer';
      if (t.type === 'rel') phase = 'right';
      if (phase !== 'question') mark = j;
      continue;
    }
    if (t.type === 'eq' || t.type === 'rel') {
      // A second sign: the next problem began after the last space between two operands.
      const at = operandGap(mark, j);
      if (at > 0) restart(at);
      continue;
    }
    if (phase !== 'answer' || t.type !== 'op') continue;
    let k = j - 1;
    while (isSep(toks[k])) k--;
    if (k <= mark) continue;
    const s = operandStart(k);
    if (s <= mark) continue;
    const before = toks[s - 1];
    if (before?.type === 'eq' || before?.type === 'rem') {
      // The operand's digits run on from the answer: "=687×8", "=3……27×8".
      const num = toks[k] as Token;
      if (num.type !== 'num' || s !== k) continue;
      const at = digitCut(startPos, num);
      if (at === null) continue;
      cuts.push(at);
      startPos = at;
      phase = 'question';
      mark = -1;
      continue;
    }
    // "=303×(22-6)": an operand right after an operator belongs to the expression it is in; the
    // cut, if any, was in the digits before that operator and could not be placed.
    if (before?.type === 'op') continue;
    // "23+45= 7×8=56": nothing written, but the next problem is plainly a problem.
    if (toks.slice(mark + 1, s).every(isSep) && !signAhead(s)) continue;
    restart(s);
  }

  const starts = [0, ...cuts.map(rawAt)];
  const pieces = starts.map((s, i) => lineText.slice(s, starts[i + 1] ?? lineText.length).trim()).filter((p) => p !== '');
  return pieces.length > 0 ? pieces : [lineText.trim()];
}
