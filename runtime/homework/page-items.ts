/**
 * A homework page's problems from its OCR lines: fragments joined, drill rows split into
 * problems with their own boxes and confidences, headings left out, and word problems gathered
 * with the child's answer lines for the cloud.
 */
import type { OcrLine } from '../../models/ocr/index.js';
import { normaliseMath, splitProblems } from '../../scenes/homework/arithmetic.js';
import { type Char, lineFloor, RELATION, UNREAD_SIGN_CONFIDENCE } from './ink-reading.js';

export type Box = { x: number; y: number; w: number; h: number };

/** A problem's text with the part of the OCR line it came from. */
export interface Piece {
  text: string;
  confidence: number;
  minCharConfidence: number;
  box: Box;
  /** Right edge of the piece's last equals sign, where the answer begins. */
  equalsX?: number;
  /** What the ink says about its operators, by position among the piece's non-space characters. */
  ink?: InkNote[];
  /** Between the brackets of a fill-in blank read as "()": where the child's answer would be. */
  bracketGap?: { x0: number; x1: number };
  /** The piece's characters as read (spaces left out), for grading it with another reading of one. */
  chars?: Char[];
  /** The slot after its "=" was looked at and is bare paper: nothing is written there. */
  bareSlot?: true;
  /** Right of its answer's last digit is bare paper: no remainder is written there. */
  nothingAfter?: true;
}

function bracketGapOf(chars: Char[]): Piece['bracketGap'] {
  const at = chars.findIndex((c, i) => /^[(（]$/.test(c.text) && /^[)）]$/.test(chars[i + 1]?.text ?? ''));
  return at < 0 ? undefined : { x0: (chars[at] as Char).x1, x1: (chars[at + 1] as Char).x0 };
}

/** The ink confirms the operator read at `at`, supports reading it as `alt` too, or rules out its look-alike `ruledOut`. */
export interface InkNote { at: number; read: string; sure?: true; alt?: string; ruledOut?: string }

function inkNotesOf(chars: Char[]): InkNote[] | undefined {
  const notes = chars.flatMap((c, at): InkNote[] =>
    c.sure || c.alt || c.ruledOut ? [{ at, read: c.text, ...(c.sure ? { sure: true as const } : {}), ...(c.alt ? { alt: c.alt } : {}), ...(c.ruledOut ? { ruledOut: c.ruledOut } : {}) }] : [],
  );
  return notes.length ? notes : undefined;
}

function equalsEnd(chars: OcrLine['chars']): number | undefined {
  const eq = [...chars].reverse().find((c) => c.text === '=' || c.text === '＝');
  return eq?.x1;
}

/** Same text row: vertical overlap of at least half the shorter box. */
export function sameRow(a: Box, b: Box): boolean {
  const overlap = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return overlap >= 0.5 * Math.min(a.h, b.h);
}

export function union(a: Box, b: Box): Box {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

/**
 * The detector sometimes splits a problem from its handwritten answer ("23+45=" | "68") or a
 * fill-in blank from its closing part. Joins a line to the one before it on the same row when
 * the earlier part is visibly unfinished and the gap is small.
 */
export function joinFragments(lines: OcrLine[]): OcrLine[] {
  const out: OcrLine[] = [];
  const starts = lines.filter((l) => lineRole(l.text) === 'arithmetic');
  // Where two other problems begin, in other rows, a column of the drill begins: what stands there
  // is a problem, whatever the recogniser lost of it ("86○68" read as "8668").
  const columnStart = (line: OcrLine): boolean => starts.filter((l) => l !== line && !sameRow(l.box, line.box) && Math.abs(l.box.x - line.box.x) <= 0.5 * line.box.h).length >= 2;
  for (const line of lines) {
    const prev = out[out.length - 1];
    const gap = prev ? line.box.x - (prev.box.x + prev.box.w) : Infinity;
    const unfinished = prev !== undefined && /[=＝(（○<>+\-×÷]\s*$/.test(prev.text);
    // A line can begin with nothing of this: a comparison's circle went with the part after it ("○28" after "22+6").
    const continues = /^\s*[)）=＝<>○]/.test(line.text);
    // After a problem's "=" comes its answer, never a whole problem: "(15+5)-19=" (left blank)
    // and the next column's "14+6=20" are two problems (joined, the 1 became the blank's answer),
    // and so are "(38+19)+16=" and the comparison "86 >68" beside it (its circle erased), or
    // "8668" where the next column begins (circle and sign lost).
    const nextProblem = prev !== undefined && /[=＝]\s*$/.test(prev.text) && (/\d\s*[+\-×÷xX*]\s*[\d(（][^=＝]*[=＝]/.test(line.text) || COMPARISON.test(line.text) || columnStart(line));
    if (prev && sameRow(prev.box, line.box) && gap >= -2 && gap < 3 * Math.max(prev.box.h, line.box.h) && (unfinished || continues) && !nextProblem) {
      const n1 = prev.chars.length || 1;
      const n2 = line.chars.length || 1;
      out[out.length - 1] = {
        ...prev,
        text: prev.text + line.text,
        confidence: (prev.confidence * n1 + line.confidence * n2) / (n1 + n2),
        minCharConfidence: Math.min(prev.minCharConfidence, line.minCharConfidence),
        box: union(prev.box, line.box),
        chars: [...prev.chars, ...line.chars],
      };
    } else out.push(line);
  }
  return out;
}

/** Two numbers with a comparison's circle or sign between them (the circle erased leaves a space). */
const COMPARISON = /\d[\s○]*[○<>＜＞][\s○]*\d/;

const DOT = /^[.·。…]$/;

/**
 * Mean and lowest confidence of a problem's characters, leaving out the dots of a remainder's
 * "……": the recogniser is never sure how many dots it saw (0.5 is usual), and their number does
 * not matter — any run of dots is read as "……".
 */
export function confidenceOf(chars: Char[]): { confidence: number; minCharConfidence: number } {
  const counted = chars.filter((_, i) => isCounted(chars, i));
  const used = counted.length ? counted : chars;
  return { confidence: used.reduce((s, c) => s + c.confidence, 0) / used.length, minCharConfidence: Math.min(...used.map((c) => c.confidence)) };
}

/** Whether the i-th character counts towards a problem's confidence (not one of a remainder's dots). */
export function isCounted(chars: Char[], i: number): boolean {
  const c = chars[i] as Char;
  return !(c.text === '…' || (DOT.test(c.text) && (DOT.test(chars[i - 1]?.text ?? '') || DOT.test(chars[i + 1]?.text ?? ''))));
}

/**
 * The line's text with a wide gap ("  ", which always separates problems) where two problems run
 * together without a space: "(62)+27=90 3+5=8" read as "(62)+27=903+5=8". Between a relation
 * and the operator or relation after it stand the answer and the next problem's first number;
 * when one gap between them is at least SPLIT_GAP line heights and every other under half that
 * (answer digits stand close), the problems part there. On 40 hard synthetic pages, such gaps
 * measured 0.77–0.9 line heights, and answer digits 0–0.2. Two wide gaps, or a division before
 * the relation (a remainder's digits with their dots lost: "17÷5=3  2 8+1=9"), leave the line as
 * it was: the grammar decides.
 */
export function spacedAtGap(line: OcrLine): string {
  const chars: Char[] = line.chars.filter((c) => c.text.trim() !== '');
  if (chars.filter((c) => RELATION.test(c.text)).length < 2) return line.text;
  const cuts = new Set<number>();
  chars.forEach((c, r) => {
    // After a division's "=" a remainder's digits may stand apart, its dots lost ("17÷5=3  28+1=9").
    if (!RELATION.test(c.text) || chars.slice(0, r).some((d) => d.text === '÷' || d.alt === '÷')) return;
    const end = chars.findIndex((d, i) => i > r && (RELATION.test(d.text) || /^[+\-×÷xX*]$/.test(d.text)));
    if (end < 0) return;
    const gaps = chars.slice(r + 2, end).map((d, k) => ({ at: r + 2 + k, gap: d.x0 - (chars[r + 1 + k] as Char).x1 }));
    const widest = gaps.reduce<(typeof gaps)[number] | undefined>((w, g) => (!w || g.gap > w.gap ? g : w), undefined);
    if (widest && widest.gap >= SPLIT_GAP * line.box.h && gaps.every((g) => g === widest || g.gap < (SPLIT_GAP / 2) * line.box.h)) cuts.add(widest.at);
  });
  if (cuts.size === 0) return line.text;
  // The text is its characters with spaces between them (one may be longer than a letter: "……").
  let text = '';
  let i = 0;
  for (const [k, c] of chars.entries()) {
    while (i < line.text.length && (line.text[i] as string).trim() === '') text += line.text[i++];
    if (!line.text.startsWith(c.text, i)) return line.text;
    text += (cuts.has(k) ? '  ' : '') + c.text;
    i += c.text.length;
  }
  return text + line.text.slice(i);
}

/** Line heights of paper between an answer and the next problem run into it (see spacedAtGap). */
export const SPLIT_GAP = 0.6;

/** Splits a line holding several problems of a drill row and gives each its own box from the character positions. */
export function piecesOf(line: OcrLine): Piece[] {
  const parts = splitProblems(spacedAtGap(line));
  const chars: Char[] = line.chars.filter((c) => c.text.trim() !== '');
  // A confidence lowered for the whole line (an unread sign, a tilted line) stays with each piece.
  const lowered = lineFloor(line) ?? 1;
  if (parts.length <= 1 || line.chars.length === 0) {
    if (chars.length === 0) return [{ text: line.text, confidence: line.confidence, minCharConfidence: line.minCharConfidence, box: line.box, equalsX: equalsEnd(line.chars), chars }];
    const own = confidenceOf(chars);
    return [{ text: line.text, confidence: own.confidence, minCharConfidence: Math.min(own.minCharConfidence, lowered), box: line.box, equalsX: equalsEnd(line.chars), ink: inkNotesOf(chars), bracketGap: bracketGapOf(chars), chars }];
  }
  const pieces: Piece[] = [];
  let at = 0;
  for (const part of parts) {
    const n = [...part.replace(/\s+/g, '')].length;
    const mine = chars.slice(at, at + n);
    at += n;
    if (mine.length === 0) continue;
    const x0 = Math.min(...mine.map((c) => c.x0));
    const x1 = Math.max(...mine.map((c) => c.x1));
    const own = confidenceOf(mine);
    pieces.push({
      text: part,
      confidence: own.confidence,
      minCharConfidence: Math.min(own.minCharConfidence, lowered),
      box: { x: Math.max(line.box.x, x0), y: line.box.y, w: Math.max(1, Math.min(line.box.x + line.box.w, x1) - Math.max(line.box.x, x0)), h: line.box.h },
      equalsX: equalsEnd(mine),
      ink: inkNotesOf(mine),
      bracketGap: bracketGapOf(mine),
      chars: mine,
    });
  }
  return pieces;
}

/**
 * Arithmetic on a line: operators between numbers or after a bracket, an equals sign, or a
 * comparison circle — or its sign, whose circle may be read as a bracket beside it ("45(>27").
 */
export function looksLikeArithmetic(text: string): boolean {
  const t = text.replace(/\s+/g, '');
  return /[\d)）}][+\-×÷xX*:]\s*[\d(（]|[=＝○]|\d[(（)）]?[<>][(（)）]?\d/.test(t);
}

const CJK = /[\u4e00-\u9fff]/;

/**
 * What a line of the page is. Titles, section headings ("二、看拼音，写词语。", also with the
 * numeral misread or lost: "耳、精次问站。", "、直接写出得数"), name/date
 * lines and page numbers are not problems; "答：…" is the answer to the question above it; a
 * line of Chinese is a question for the cloud (a word problem, 看拼音写词语), and the lines
 * under it up to the next problem are the child's answer to it. A run of four or more digits
 * with at most points and brackets between them is a problem whose signs were all lost
 * ("79-70=9" read as "79.709", "94-49=45" as "9449"): no page number is that long.
 */
export function lineRole(text: string): 'header' | 'arithmetic' | 'answer' | 'question' | 'signs_lost' | 'other' {
  const t = text.replace(/\s+/g, '');
  if (t.length === 0 || /^[一二三四五六七八九十]+[、.．]/.test(t) || /^[^\d]?、/.test(t) || /姓名|日期|得分|用时|班级|口算练习|第\d+课/.test(t) || /^[—\-–]*\d{1,3}[—\-–]*$/.test(t)) return 'header';
  if (/^答[:：]/.test(t)) return 'answer';
  // A question mark ends a word problem's question, unless it stands after an "=": then it is a
  // handwritten digit the recogniser took for one ("7÷5=1……2" read as "7+5=1....?").
  if (looksLikeArithmetic(t) && (!/[？?]$/.test(t) || /[=＝][^=＝]*[？?]$/.test(t))) return 'arithmetic';
  if (CJK.test(t) && [...t].length >= 4) return 'question';
  const n = normaliseMath(t);
  if (/^[\d.()]+$/.test(n) && n.replace(/\D/g, '').length >= 4) return 'signs_lost';
  return 'other';
}

/**
 * "91   75" with nothing between: a comparison whose circle and sign were both lost. It becomes
 * "91○75" with an unread sign, so the problem still gets its mark (uncertain) instead of vanishing.
 */
export function lostComparison(line: OcrLine): OcrLine | undefined {
  const chars = line.chars.filter((c) => c.text.trim() !== '');
  if (chars.length < 2 || !chars.every((c) => /[\d+\-×÷()]/.test(c.text)) || /[=<>○]/.test(line.text)) return undefined;
  let gapAt = -1;
  let widest = 0.8 * line.box.h;
  for (let i = 1; i < chars.length; i++) {
    const gap = (chars[i] as { x0: number }).x0 - (chars[i - 1] as { x1: number }).x1;
    if (gap > widest) [gapAt, widest] = [i, gap];
  }
  if (gapAt < 0) return undefined;
  const left = chars.slice(0, gapAt).map((c) => c.text).join('');
  const right = chars.slice(gapAt).map((c) => c.text).join('');
  if (!/\d$/.test(left) || !/^\d/.test(right)) return undefined;
  return { ...line, text: `${left}○${right}`, minCharConfidence: Math.min(line.minCharConfidence, UNREAD_SIGN_CONFIDENCE) };
}

export interface PageItem extends Piece {
  /** For a cloud question: the child's answer lines under it. */
  answer?: string;
  arithmetic: boolean;
}

/**
 * A question mark ends the line — or a 7 right after a Chinese character, which is how the
 * recogniser reads a blurred "？" ("每人分几个7"; a word problem's numbers stand before their measure word).
 */
const endsQuestion = (text: string): boolean => /[？?]\s*$|[\u4e00-\u9fff]7\s*$/.test(text);

/** A task label before a colon: "看拼音写词语：tàiyáng". */
const instruction = (text: string): boolean => /^[\u4e00-\u9fff]{3,8}[:：]/.test(text.replace(/\s+/g, ''));

/** Whether a question's lines so far (the first, and the ones under it) hold its question mark. */
const asked = (q: PageItem): boolean => /[？?]/.test(q.text + (q.answer ?? '')) || endsQuestion(q.text);

/** The page's problems in reading order, from its OCR lines. */
export function pageItems(lines: OcrLine[]): PageItem[] {
  const items: PageItem[] = [];
  let question: PageItem | undefined;
  for (const raw of joinFragments(lines)) {
    const line = lostComparison(raw) ?? raw;
    const role = lineRole(line.text);
    if (role === 'header') {
      question = undefined;
    } else if (role === 'arithmetic') {
      question = undefined;
      for (const p of piecesOf(line)) if (looksLikeArithmetic(p.text)) items.push({ ...p, arithmetic: true });
    } else if (role === 'signs_lost' && !question && items.some((i) => i.arithmetic)) {
      // Among the drill's problems (not a year or a number above them): still a problem, graded
      // uncertain (or read again and confirmed right), and it gets its mark.
      for (const p of piecesOf(line)) items.push({ ...p, arithmetic: true });
    } else if (role === 'question' && (!question || (asked(question) && endsQuestion(line.text)) || instruction(line.text))) {
      // A new question: none is open, or the open one has asked its question and this line asks
      // another, or the line begins with a task ("看拼音写词语：…").
      question = { text: line.text.replace(/\s+/g, ''), confidence: line.confidence, minCharConfidence: line.minCharConfidence, box: line.box, arithmetic: false };
      items.push(question);
    } else if (question) {
      // The rest of a question that wraps (until its question mark), then the child's answer
      // (答：…, the characters in the boxes).
      const text = line.text.replace(/\s+/g, '').replace(/^答[:：]/, '');
      if (role === 'question' && !asked(question) && question.answer === undefined) question.text += text;
      else question.answer = (question.answer ?? '') + text;
      question.box = union(question.box, line.box);
      question.minCharConfidence = Math.min(question.minCharConfidence, line.minCharConfidence);
    }
  }
  return items;
}
