import { randomUUID } from 'node:crypto';
import { cv, type Mat } from '../../models/cv.js';
import { OcrEngine, type OcrLine } from '../../models/ocr/index.js';
import { type Circle, eraseComparisonCircles, findComparisonCircles, hasDotsAboveAndBelow, inkExtent, inkMarks, markBounds, equalsSigns, isBareBar, isDiagonalCross, isMidHeightDot, guessCircleSign, lacksCrossing, preparePage, readCircleSign } from '../../models/page/index.js';
import { CORRECT_CHAR_FLOOR, DEFAULT_BLANK_MIN_CONFIDENCE, DEFAULT_MIN_CHAR_CONFIDENCE, DEFAULT_MIN_CONFIDENCE, type GradeResult, gradeProblem, splitProblems } from '../../scenes/homework/arithmetic.js';
import type { CheckedItem, PageCheck } from '../../scenes/homework/types.js';
import type { Logger } from '../log.js';

export interface CheckerOptions {
  modelsDir: string;
  log?: Logger;
  /** Writes every intermediate image of the page pipeline here (the one debug switch). */
  dumpDir?: string;
  /** Below this OCR confidence a problem is uncertain, never wrong. */
  minConfidence?: number;
}

export interface PageResult {
  check: PageCheck;
  timings_ms: { preprocess: number; ocr: number; grade: number };
  /** JPEG crops of each problem by index, for the cloud's grading of what the lamp cannot judge. */
  crops: Map<number, Buffer>;
}

type Box = { x: number; y: number; w: number; h: number };

/** A problem's text with the part of the OCR line it came from. */
interface Piece {
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
}

function bracketGapOf(chars: Char[]): Piece['bracketGap'] {
  const at = chars.findIndex((c, i) => /^[(（]$/.test(c.text) && /^[)）]$/.test(chars[i + 1]?.text ?? ''));
  return at < 0 ? undefined : { x0: (chars[at] as Char).x1, x1: (chars[at + 1] as Char).x0 };
}

/** The ink confirms the operator read at `at`, or supports reading it as `alt` too. */
interface InkNote { at: number; read: string; sure?: true; alt?: string }

function inkNotesOf(chars: Char[]): InkNote[] | undefined {
  const notes = chars.flatMap((c, at): InkNote[] => (c.sure || c.alt ? [{ at, read: c.text, ...(c.sure ? { sure: true as const } : {}), ...(c.alt ? { alt: c.alt } : {}) }] : []));
  return notes.length ? notes : undefined;
}

function equalsEnd(chars: OcrLine['chars']): number | undefined {
  const eq = [...chars].reverse().find((c) => c.text === '=' || c.text === '＝');
  return eq?.x1;
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

/** Same text row: vertical overlap of at least half the shorter box. */
function sameRow(a: Box, b: Box): boolean {
  const overlap = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return overlap >= 0.5 * Math.min(a.h, b.h);
}

function union(a: Box, b: Box): Box {
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
  for (const line of lines) {
    const prev = out[out.length - 1];
    const gap = prev ? line.box.x - (prev.box.x + prev.box.w) : Infinity;
    const unfinished = prev !== undefined && /[=＝(（○<>+\-×÷]\s*$/.test(prev.text);
    const continues = /^\s*[)）=＝<>]/.test(line.text);
    if (prev && sameRow(prev.box, line.box) && gap >= -2 && gap < 3 * Math.max(prev.box.h, line.box.h) && (unfinished || continues)) {
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

const DOT = /^[.·。…]$/;

/**
 * Mean and lowest confidence of a problem's characters, leaving out the dots of a remainder's
 * "……": the recogniser is never sure how many dots it saw (0.5 is usual), and their number does
 * not matter — any run of dots is read as "……".
 */
function confidenceOf(chars: Char[]): { confidence: number; minCharConfidence: number } {
  const counted = chars.filter((c, i) => !(c.text === '…' || (DOT.test(c.text) && (DOT.test(chars[i - 1]?.text ?? '') || DOT.test(chars[i + 1]?.text ?? '')))));
  const used = counted.length ? counted : chars;
  return { confidence: used.reduce((s, c) => s + c.confidence, 0) / used.length, minCharConfidence: Math.min(...used.map((c) => c.confidence)) };
}

/** Splits a line holding several problems of a drill row and gives each its own box from the character positions. */
export function piecesOf(line: OcrLine): Piece[] {
  const parts = splitProblems(line.text);
  const chars: Char[] = line.chars.filter((c) => c.text.trim() !== '');
  if (parts.length <= 1 || line.chars.length === 0) {
    // A confidence lowered for the whole line (a lost comparison sign) stays lowered.
    const lowered = line.minCharConfidence < Math.min(...chars.map((c) => c.confidence));
    const { confidence, minCharConfidence } = confidenceOf(chars);
    return [{ text: line.text, confidence: chars.length ? confidence : line.confidence, minCharConfidence: lowered || !chars.length ? line.minCharConfidence : minCharConfidence, box: line.box, equalsX: equalsEnd(line.chars), ink: inkNotesOf(chars), bracketGap: bracketGapOf(chars), chars }];
  }
  // A confidence lowered for the whole line (an unread sign, a tilted line) stays with each piece.
  const lowered = line.minCharConfidence < Math.min(...chars.map((c) => c.confidence)) ? line.minCharConfidence : 1;
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

/** Arithmetic on a line: operators between numbers, an equals sign, or a comparison circle. */
export function looksLikeArithmetic(text: string): boolean {
  const t = text.replace(/\s+/g, '');
  return /\d[+\-×÷xX*:]\s*[\d(（]|[=＝○]|\d[<>]\d/.test(t);
}

const CJK = /[\u4e00-\u9fff]/;

/**
 * What a line of the page is. Titles, section headings ("二、看拼音，写词语。"), name/date
 * lines and page numbers are not problems; "答：…" is the answer to the question above it; a
 * line of Chinese is a question for the cloud (a word problem, 看拼音写词语), and the lines
 * under it up to the next problem are the child's answer to it.
 */
export function lineRole(text: string): 'header' | 'arithmetic' | 'answer' | 'question' | 'other' {
  const t = text.replace(/\s+/g, '');
  if (t.length === 0 || /^[一二三四五六七八九十]+[、.．]/.test(t) || /姓名|日期|得分|用时|班级|口算练习|第\d+课/.test(t) || /^[—\-–]*\d+[—\-–]*$/.test(t)) return 'header';
  if (/^答[:：]/.test(t)) return 'answer';
  if (looksLikeArithmetic(t) && !/[？?]$/.test(t)) return 'arithmetic';
  if (CJK.test(t) && [...t].length >= 4) return 'question';
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

const endsQuestion = (text: string): boolean => /[？?]\s*$/.test(text);
/** A task label before a colon: "看拼音写词语：tàiyáng". */
const instruction = (text: string): boolean => /^[\u4e00-\u9fff]{3,8}[:：]/.test(text.replace(/\s+/g, ''));
/** Whether a question's lines so far (the first, and the ones under it) hold its question mark. */
const asked = (q: PageItem): boolean => /[？?]/.test(q.text + (q.answer ?? ''));

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

/**
 * The lamp's look at a homework page: page pipeline → OCR → arithmetic grading. Models load
 * once; `check` runs per photo. Everything the lamp cannot judge itself (not arithmetic, or not
 * sure enough) comes out `uncertain` and is for the cloud.
 */
export class HomeworkChecker {
  private constructor(private readonly ocr: OcrEngine, private readonly opts: CheckerOptions) {}

  static async load(opts: CheckerOptions): Promise<HomeworkChecker> {
    return new HomeworkChecker(await OcrEngine.load({ modelsDir: opts.modelsDir, log: opts.log }), opts);
  }

  async check(image: Buffer | Mat, opts: { skipQuality?: boolean } = {}): Promise<PageResult> {
    const t0 = performance.now();
    const prepared = await preparePage(image, { dumpDir: this.opts.dumpDir, skipQuality: opts.skipQuality });
    const t1 = performance.now();
    if (!prepared.quality.ok || !prepared.page) {
      const q = prepared.quality;
      return { check: { ok: false, issue: q.issue ?? 'no_page', hint: q.hint ?? '我没看清楚，把作业本放平再试试吧' }, timings_ms: { preprocess: round(t1 - t0), ocr: 0, grade: 0 }, crops: new Map() };
    }
    const page = prepared.page;
    // The recogniser drops comparison circles and the sign in them: the circles are painted out
    // before reading, and the sign is read from its shape and put back into its line.
    const circles = findComparisonCircles(page);
    const erased = eraseComparisonCircles(page, circles);
    const lines = withCircleSigns(await this.ocr.read(erased), circles.map((c) => signOf(page, c)));
    const t2 = performance.now();

    const items: CheckedItem[] = [];
    const boxes = new Map<number, Box>();
    const pieces = pageItems(doubtedIfTilted(lines.map((l) => this.withInk(page, l))));
    await this.readMissingAnswers(page, pieces);
    const ink: PageInk = { page, erased, circles };
    for (const piece of pieces) {
      const index = items.length + 1;
      boxes.set(index, piece.box);
      const bbox = sourceBox(piece.box, prepared.toSource);
      const confidence = Math.round(piece.confidence * 1000) / 1000;
      if (!piece.arithmetic) {
        items.push({ index, question: piece.text, student_answer: piece.answer ?? '', correct_answer: null, verdict: 'uncertain', confidence, bbox, kind: 'not_arithmetic', reason: 'not_arithmetic', judged_by: 'lamp' });
        continue;
      }
      const g = this.grade(ink, piece);
      items.push({ index, question: g.question, student_answer: g.student_answer, correct_answer: g.correct_answer, verdict: g.verdict, confidence: Math.round(g.confidence * 1000) / 1000, bbox, kind: g.kind, reason: g.reason, judged_by: 'lamp' });
    }
    const crops = new Map<number, Buffer>();
    for (const it of items) {
      if (it.verdict !== 'uncertain') continue;
      const b = boxes.get(it.index) as Box;
      crops.set(it.index, cropJpeg(page, b));
    }
    const t3 = performance.now();
    this.opts.log?.debug({ lines: lines.length, items: items.length }, 'page checked');
    return {
      check: { ok: true, check_id: randomUUID(), items, timings_ms: { preprocess: round(t1 - t0), ocr: round(t2 - t1), grade: round(t3 - t2) } },
      timings_ms: { preprocess: round(t1 - t0), ocr: round(t2 - t1), grade: round(t3 - t2) },
      crops,
    };
  }

  /** The line with what its ink says about its signs; as read when looking at the ink fails (the page is still graded). */
  private withInk(page: Mat, line: OcrLine): OcrLine {
    try {
      return readSignsFromInk(page, line);
    } catch (err) {
      this.opts.log?.warn({ err, chars: line.chars.length }, 'reading the signs of a line from its ink failed; the line is graded as read');
      return line;
    }
  }

  /**
   * Grades a problem, and before calling it wrong checks that the ink agrees with the reading:
   * no + whose strokes do not cross (it may be a ÷: "36÷4=9" read as "36+4=0"), and for a
   * comparison no printed sign dropped silently ("9×6○55" read as "96○55").
   */
  private grade(ink: PageInk, piece: PageItem): GradeResult {
    const g = this.gradeWithSigns(ink.page, piece);
    if (g.verdict !== 'incorrect') return g;
    // A + without a crossing: wrong only if it is wrong as the ÷ the ink suggests too (and then
    // shown as that ÷, which is what the page most likely says).
    const other = this.alternateReading(piece);
    if (other && other.verdict !== 'incorrect') return { ...g, verdict: 'uncertain', reason: 'operator_may_be_misread' };
    if (other) return other;
    if (g.kind === 'compare' && comparisonMisread(ink.erased, piece, g, ink.circles)) return { ...g, verdict: 'uncertain', reason: 'printed_mark_unread' };
    return g;
  }

  /**
   * Grades a problem with what the ink says about its operators. An operator whose ink is
   * unmistakable (a ÷ with both dots, a bare -) is not taken for its look-alike. When the answer
   * is right only if a printed + is ÷ (the recogniser's usual mistake on a blurred page) and that
   * + has no crossing, the ink decides: correct. Only a right answer is ever concluded this way.
   */
  private gradeWithSigns(page: Mat, piece: PageItem): GradeResult {
    const inkConfirmed = new Set((piece.ink ?? []).flatMap((n) => (n.sure ? [rawIndex(piece.text, n.at, n.read) ?? -1] : [])));
    const input = { text: piece.text, confidence: piece.confidence, minCharConfidence: piece.minCharConfidence, inkConfirmed };
    const opts = { minConfidence: this.opts.minConfidence };
    const g = gradeProblem(input, opts);
    // An empty fill-in bracket is unsure because OCR moves a bracket's content; bare paper
    // between the brackets is a blank.
    if (g.reason === 'blank_maybe_unread' && g.kind === 'fill_blank' && piece.bracketGap && piece.confidence >= DEFAULT_BLANK_MIN_CONFIDENCE && bareBetween(page, piece.box, piece.bracketGap)) {
      return { ...g, verdict: 'incorrect', reason: 'blank' };
    }
    // A problem read up to its "=" with bare paper after it is not answered: the recogniser's
    // doubt about the rest of the line does not make the paper less bare.
    if (g.reason === 'blank_maybe_unread' && g.kind !== 'fill_blank' && piece.bareSlot && piece.confidence >= (this.opts.minConfidence ?? DEFAULT_MIN_CONFIDENCE)) {
      return { ...g, verdict: 'incorrect', reason: 'blank' };
    }
    if (g.verdict !== 'uncertain') return g;
    const other = this.alternateReading(piece);
    return other?.verdict === 'correct' ? { ...other, reason: 'sign_read_from_ink' } : g;
  }

  /**
   * The problem graded with the first other reading its ink supports (a + without a crossing
   * read as ÷). The recogniser's doubt about the character it read there is not a doubt about
   * the ink's reading, which counts as a guessed character instead: it can confirm a right
   * answer, never condemn one.
   */
  private alternateReading(piece: PageItem): GradeResult | undefined {
    for (const n of piece.ink ?? []) {
      const index = n.alt ? rawIndex(piece.text, n.at, n.read) : undefined;
      if (n.alt === undefined || index === undefined) continue;
      const text = piece.text.slice(0, index) + n.alt + piece.text.slice(index + n.read.length);
      return gradeProblem({ text, ...confidenceWithGuess(piece, n.at) }, { minConfidence: this.opts.minConfidence });
    }
    return undefined;
  }

  /**
   * The detector misses short answers written apart from the problem ("18-14=  4"): for a
   * problem that ends at its equals sign, the slot to its right is read on its own, and what is
   * found there becomes the answer. A slot with nothing readable stays blank.
   */
  private async readMissingAnswers(page: Mat, pieces: PageItem[]): Promise<void> {
    // A remainder's digit after its dots ("16÷5=3……") is missed the same way: its slot is just
    // right of the dots, which end where the piece's box does.
    const slotOf = (p: PageItem): Box | undefined =>
      /[=＝]\s*$/.test(p.text) ? answerSlot(page, p.box, p.equalsX, 3.5) : /(…|[.·。]{2,})\s*$/.test(p.text) ? answerSlot(page, p.box, p.box.x + p.box.w - 0.3 * p.box.h, 1.5) : undefined;
    const open = pieces.flatMap((p) => {
      const slot = p.arithmetic ? slotOf(p) : undefined;
      return slot ? [{ p, slot }] : [];
    });
    if (open.length === 0) return;
    // Only slots with ink in them are read again, cut to the ink: a lone digit in a wide strip
    // of paper is what the recogniser misses.
    const inked = open.map(({ p, slot }) => ({ p, slot: inkBox(page, slot, p.box.h) })).filter((x): x is { p: PageItem; slot: Box } => {
      if (x.slot === undefined && /[=＝]\s*$/.test(x.p.text)) x.p.bareSlot = true;
      return x.slot !== undefined;
    });
    if (inked.length === 0) return;
    const read = await this.ocr.recognize(inked.map(({ slot: b }) => page.getRegion(new cv.Rect(b.x, b.y, b.w, b.h))));
    inked.forEach(({ p, slot }, i) => {
      const r = read[i];
      const answer = r?.text.replace(/\s+/g, '').replace(/^[….·。]+/, '') ?? '';
      if (!r || !/\d/.test(answer) || r.confidence < 0.5) {
        // Something is written there that cannot be read: never call it blank.
        p.minCharConfidence = Math.min(p.minCharConfidence, UNREAD_SIGN_CONFIDENCE);
        return;
      }
      p.text += answer;
      p.box = union(p.box, { x: slot.x + Math.min(...r.chars.map((c) => c.x0)), y: p.box.y, w: Math.max(1, Math.max(...r.chars.map((c) => c.x1)) - Math.min(...r.chars.map((c) => c.x0))), h: p.box.h });
      p.confidence = Math.min(p.confidence, r.confidence);
      p.minCharConfidence = Math.min(p.minCharConfidence, r.minCharConfidence);
    });
  }

  async release(): Promise<void> {
    await this.ocr.release();
  }
}

/** A piece's confidences with its at-th character guessed from the ink (a confidence lowered for the whole piece stays). */
function confidenceWithGuess(piece: Piece, at: number): { confidence: number; minCharConfidence: number } {
  const chars = piece.chars;
  if (!chars?.length) return { confidence: piece.confidence, minCharConfidence: piece.minCharConfidence };
  const own = confidenceOf(chars);
  const guessed = confidenceOf(chars.map((c, i) => (i === at ? { ...c, confidence: Math.max(c.confidence, INK_GUESSED) } : c)));
  // Lowered by something outside its characters (an unread sign, an answer read on its own).
  const lowered = piece.minCharConfidence < own.minCharConfidence;
  return { confidence: piece.confidence + guessed.confidence - own.confidence, minCharConfidence: lowered ? piece.minCharConfidence : guessed.minCharConfidence };
}

/**
 * Lines tilted on the flattened page: the page was not flattened there (its corners were found
 * wrong), and the recogniser may have run rows or problems together — "7+0.9=15" for
 * "0.7+0.9=1.6", "(10+4)=9" for "(10+44)÷6=9" from two rows in one box. A tilted line's
 * readings can confirm a right answer, never condemn one; when a fifth of the page's lines are
 * tilted, so are all its readings (the merged box of two rows is itself level). Level lines stay
 * within 4.5° after deskewing (8 hard synthetic pages); on the two badly flattened pages seen,
 * half the lines were tilted 6–22°.
 */
export function doubtedIfTilted(lines: OcrLine[]): OcrLine[] {
  const tilts = lines.map((line) => {
    const [a, b] = line.quad;
    return a && b && line.chars.length >= 3 ? Math.abs((Math.atan2(b[1] - a[1], b[0] - a[0]) * 180) / Math.PI) : undefined;
  });
  const measured = tilts.filter((t): t is number => t !== undefined);
  const pageTilted = measured.filter((t) => t > MAX_LINE_TILT_DEG).length > 0.2 * measured.length;
  return lines.map((line, i) => (pageTilted || (tilts[i] ?? 0) > MAX_LINE_TILT_DEG ? { ...line, minCharConfidence: Math.min(line.minCharConfidence, INK_GUESSED) } : line));
}

const MAX_LINE_TILT_DEG = 6;

/** Where in `text` its at-th non-space character is, if that character is still `read`. */
function rawIndex(text: string, at: number, read: string): number | undefined {
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    if ((text[i] as string).trim() === '') continue;
    if (k++ === at) return text.startsWith(read, i) ? i : undefined;
  }
  return undefined;
}

/** The page as the grader's checks see it: the flat page, the page with its circles painted out, and the circles. */
interface PageInk { page: Mat; erased: Mat; circles: Circle[] }

/** Below any grading threshold: a circle whose sign could not be read leaves its problem uncertain. */
const UNREAD_SIGN_CONFIDENCE = 0.2;

/** A circle with its sign: read from its shape, or else guessed from its ink's spread (then doubtful). */
function signOf(page: Mat, c: Circle): SignedCircle {
  const sign = readCircleSign(page, c);
  if (sign !== undefined) return { ...c, sign };
  const guess = guessCircleSign(page, c);
  return guess ? { ...c, sign: guess, guessed: true } : { ...c, sign: undefined };
}

type SignedCircle = Circle & { sign: string | undefined; guessed?: boolean };

/**
 * Puts each comparison circle's sign (or ○ when the sign could not be read, which the grader
 * then leaves uncertain) into the OCR line that runs through the circle, at its place.
 */
export function withCircleSigns(lines: OcrLine[], circles: SignedCircle[]): OcrLine[] {
  return lines.map((line) => {
    const mine = circles.filter((c) => c.y >= line.box.y && c.y <= line.box.y + line.box.h && c.x >= line.box.x - c.r && c.x <= line.box.x + line.box.w + c.r);
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
      // The blurred sign in a circle the recogniser read as a "-": the circle's sign replaces it.
      const dash = c.sign ? chars.findIndex((ch) => /^[-一]$/.test(ch.text) && Math.abs((ch.x0 + ch.x1) / 2 - c.x) < 0.6 * c.r) : -1;
      if (dash >= 0) chars.splice(dash, 1);
      changed = true;
      const at = chars.findIndex((ch) => (ch.x0 + ch.x1) / 2 > c.x);
      // An empty circle is the child's blank ("45○54"), an unreadable one stays ○ but unsure.
      const sign = { text: c.sign || '○', confidence: c.sign === undefined ? UNREAD_SIGN_CONFIDENCE : c.guessed ? INK_GUESSED : 0.9, x0: c.x - c.r / 2, x1: c.x + c.r / 2 };
      // An "=" in a circle is the comparison's answer, not a sum's equals: "42○=24".
      chars.splice(at < 0 ? chars.length : at, 0, ...(sign.text === '=' ? [{ ...sign, text: '○' }, sign] : [sign]));
      // A sign that could not be read must not look like a blank answer: the line becomes unsure.
      unread ||= c.sign === undefined;
    }
    if (!changed) return line;
    const x0 = Math.min(line.box.x, ...mine.map((c) => c.x - c.r));
    const x1 = Math.max(line.box.x + line.box.w, ...mine.map((c) => c.x + c.r));
    return { ...line, text: chars.map((c) => c.text).join(''), chars, box: { ...line.box, x: x0, w: x1 - x0 }, minCharConfidence: unread ? Math.min(line.minCharConfidence, UNREAD_SIGN_CONFIDENCE) : line.minCharConfidence };
  });
}

/** The part of a box with ink in it (darker than its paper), padded; undefined when it is empty paper. */
function inkBox(page: Mat, b: Box, lineH: number): Box | undefined {
  const gray = page.getRegion(new cv.Rect(b.x, b.y, b.w, b.h)).bgrToGray();
  const paper = gray.mean().w;
  const marks = inkMarks(gray.threshold(Math.max(0, paper - 45), 255, cv.THRESH_BINARY_INV)).filter(
    // Specks of noise, and the ends of the equals sign's bars reaching into the slot's left edge (a digit is taller).
    (m) => m.area >= 8 && !(m.x === 0 && m.h < 0.35 * lineH),
  );
  const ink = markBounds(marks);
  if (!ink) return undefined;
  const pad = Math.round(0.25 * b.h);
  const x = Math.max(0, b.x + ink.x - pad);
  const y = Math.max(0, b.y + ink.y - pad);
  return { x, y, w: Math.min(page.cols - x, ink.w + 2 * pad), h: Math.min(page.rows - y, ink.h + 2 * pad) };
}

/**
 * Whether a comparison read with bare numbers lost a printed sign: its numbers are two or more
 * digits apart in length ("24+35○60" read as "2435○60"), or a side is wider in ink than its
 * digits — a printed digit is at most 0.76 of its height wide (measured on the synthetic pages,
 * spacing included), while "9×6" read as "96" is 0.93 or more per digit.
 */
export function comparisonMisread(erased: Mat, piece: PageItem, g: GradeResult, circles: Circle[]): boolean {
  const [left, right] = g.question.split('○');
  if (left === undefined || right === undefined) return false;
  const bare = (t: string): boolean => /^\d+$/.test(t);
  if (bare(left) && bare(right) && Math.abs(left.length - right.length) >= 2) return true;
  const b = piece.box;
  const c = circles.find((c) => c.x > b.x && c.x < b.x + b.w && c.y > b.y && c.y < b.y + b.h);
  if (!c) return false;
  const sides = [
    { text: left, box: { ...b, w: c.x - c.r - b.x } },
    { text: right, box: { ...b, x: c.x + c.r, w: b.x + b.w - c.x - c.r } },
  ];
  return sides.some(({ text, box }) => {
    if (!bare(text)) return false;
    const ink = inkExtent(erased, box);
    return ink !== undefined && ink.w > MAX_DIGIT_WIDTH * text.length * ink.h;
  });
}

const MAX_DIGIT_WIDTH = 0.85;

/** Whether the page between x0 and x1 of a line (its middle rows, the bracket strokes left out) is bare paper. */
function bareBetween(page: Mat, line: Box, gap: { x0: number; x1: number }): boolean {
  const inset = Math.max(2, Math.round(0.15 * (gap.x1 - gap.x0)));
  const x = Math.round(gap.x0 + inset);
  const w = Math.round(gap.x1 - inset) - x;
  if (w < 4) return false;
  return inkBox(page, { x, y: Math.round(line.y + 0.15 * line.h), w: Math.min(w, page.cols - x), h: Math.round(0.7 * line.h) }, line.h) === undefined;
}

/** Where a child writes the answer: right of `from` (the equals sign), `widthInLines` line heights wide. */
function answerSlot(page: Mat, b: Box, from: number | undefined, widthInLines: number): Box {
  const x = Math.min(page.cols - 2, Math.round(from !== undefined ? from + 1 : b.x + b.w));
  const y = Math.max(0, Math.round(b.y - 0.3 * b.h));
  return { x, y, w: Math.max(2, Math.min(page.cols - x, Math.round(widthInLines * b.h))), h: Math.max(2, Math.min(page.rows - y, Math.round(1.6 * b.h))) };
}

/** An OCR character with what its ink says: `sure` when it confirms the reading, `alt` another reading it supports. */
type Char = OcrLine['chars'][number] & { sure?: true; alt?: string };

/**
 * The operators of a line, looked at in the ink. A ÷ whose dots the recogniser did not see reads
 * as + or -: where the ink has a bar with a dot above and below, it is ÷ (and sure). A - that is
 * a bare bar is sure, and so is an x or × whose ink is a cross of diagonals. A + whose strokes
 * do not cross keeps its reading with ÷ as another one.
 * An "=" the recogniser lost is put back, or vouched for when it hardly believed it (see
 * `lostEquals`); a remainder's "……" read as one point is put back (see `remainderDots`).
 */
export function readSignsFromInk(page: Mat, line: OcrLine): OcrLine {
  const equals = lostEquals(page, line);
  const shaky = line.chars.some((c) => c.text === '=' && c.confidence < INK_GUESSED) ? equalsSigns(page, line.box) : [];
  const chars = line.chars.map((c, i): Char => {
    if (equals?.replace === i) return { ...c, text: '=', confidence: INK_GUESSED };
    // An "=" the recogniser hardly believed in, where the ink has an equals-shaped mark.
    if (c.text === '=' && c.confidence < INK_GUESSED && shaky.some((s) => s.x0 <= (c.x0 + c.x1) / 2 && (c.x0 + c.x1) / 2 <= s.x1)) return { ...c, confidence: INK_GUESSED };
    if (remainderDots(line, i)) return { ...c, text: '……', confidence: Math.min(c.confidence, INK_GUESSED) };
    if (minusReadAsPoint(line, i) && isMidHeightDot(page, line.box, c.x0, c.x1)) return { ...c, text: '-', confidence: INK_GUESSED };
    // The recogniser reads × as "x" and a cross of diagonals in the ink agrees: sure (a child
    // who added instead of multiplying, 3×3=6, is then wrong, not "maybe misread").
    if (/^[x×X]$/.test(c.text)) return isDiagonalCross(page, line.box, c.x0, c.x1) ? { ...c, sure: true } : c;
    if (c.text !== '+' && c.text !== '-' && c.text !== '÷') return c;
    // "28+÷3": the recogniser read one ÷ twice; the cell of the first one is the same ÷.
    if (c.text !== '÷' && (line.chars[i + 1]?.text === '÷' || line.chars[i - 1]?.text === '÷')) return { ...c, text: '' };
    if (hasDotsAboveAndBelow(page, line.box, c.x0, c.x1)) return { ...c, text: '÷', sure: true };
    if (c.text === '-' && isBareBar(page, line.box, c.x0, c.x1)) return { ...c, sure: true };
    if (c.text === '+' && lacksCrossing(page, line.box, c.x0, c.x1)) return { ...c, alt: '÷' };
    return c;
  });
  if (!equals && chars.every((c, i) => c === line.chars[i])) return line;
  const inserted: Char | undefined = equals?.insertBefore !== undefined ? { text: '=', confidence: INK_GUESSED, x0: equals.x0, x1: equals.x1 } : undefined;
  // The line's text is its characters (spaces between them are not characters of the model).
  let text = '';
  let k = 0;
  for (const ch of line.text) {
    if (chars[k] && ch === line.chars[k]?.text) {
      if (inserted && k === equals?.insertBefore) text += '=';
      text += (chars[k++] as { text: string }).text;
    } else text += ch;
  }
  if (inserted) chars.splice(equals?.insertBefore as number, 0, inserted);
  // A text that did not line up with its characters is rebuilt from them.
  if (k < line.chars.length) text = chars.map((c) => c.text).join('');
  return { ...line, text, chars, minCharConfidence: lowestAfterInk(line, chars) };
}

/**
 * The line's lowest character confidence after the ink put back or vouched for an "=": the
 * doubtful "=" counts, what the recogniser read there does not; a confidence the line had lowered
 * for itself stays.
 */
function lowestAfterInk(line: OcrLine, chars: Char[]): number {
  const lowest = (cs: Char[]): number => Math.min(...cs.filter((c) => c.text.trim() !== '').map((c) => c.confidence));
  return line.minCharConfidence < lowest(line.chars) ? line.minCharConfidence : lowest(chars);
}

/**
 * Whether the "." at `i` is a remainder's "……" read as one point: it stands between two digits
 * of the answer that are at least 0.8 line heights apart. A decimal point leaves the digits
 * 0.3–0.4 apart, the dots of "7……3" 1.1 or more (synthetic pages, as the recogniser places them).
 */
function remainderDots(line: OcrLine, i: number): boolean {
  const [prev, dot, next] = [line.chars[i - 1], line.chars[i], line.chars[i + 1]];
  if (!dot || !/^[.·。]$/.test(dot.text) || !isDigit(prev) || !isDigit(next)) return false;
  const operator = line.chars.findIndex((c) => /^[+\-×÷xX]$/.test(c.text));
  return operator >= 0 && operator < i - 2 && (next as Char).x0 - (prev as Char).x1 >= 0.8 * line.box.h;
}

/**
 * Whether the "." at `i` may be a "-" the recogniser read as a point ("40.4=36"): between digits,
 * before the "=", in a sum with no operator at all. The ink decides (`isMidHeightDot`).
 */
function minusReadAsPoint(line: OcrLine, i: number): boolean {
  const chars = line.chars;
  const equals = chars.findIndex((c) => c.text === '=' || c.text === '＝');
  return /^[.·]$/.test(chars[i]?.text ?? '') && equals > i + 1 && isDigit(chars[i - 1]) && isDigit(chars[i + 1]) && !chars.slice(0, equals).some((c) => /^[+\-×÷xX]$/.test(c.text));
}

const isDigit = (c: Char | undefined): boolean => c !== undefined && /^\d$/.test(c.text);

/**
 * The "=" of a sum the recogniser lost on a blurred page: read as 元, 年 or m (its two bars
 * joined by blur look like neither - nor =), read as "-" ("8+9-7"), or dropped ("9+1019"). In a
 * line with an operator and no "=" or comparison, a look-alike between digits after the operator
 * is the "="; otherwise, after the operator, the one place where the ink has an equals-shaped
 * mark (`equalsSigns`) and the recogniser read a "-" or nothing between two digits.
 */
type EqualsPlace = { replace?: number; insertBefore?: number; x0: number; x1: number };
function lostEquals(page: Mat, line: OcrLine): EqualsPlace | undefined {
  const chars = line.chars;
  if (chars.some((c) => /^[=＝<>○]$/.test(c.text))) return undefined;
  const firstOperator = chars.findIndex((c) => /^[+\-×÷xX]$/.test(c.text));
  if (firstOperator < 0) return undefined;
  // Between two digits after the operator, with only the answer after it ("…=1.5", "…=3……2").
  const between = (i: number, next = i + 1): boolean => i > firstOperator + 1 && isDigit(chars[i - 1]) && isDigit(chars[next]) && chars.slice(next).every((c) => /^[\d.·。…/\s]$/.test(c.text));
  const lookalike = chars.findIndex((c, i) => EQUALS_LOOKALIKES.includes(c.text) && between(i));
  if (lookalike >= 0) return { replace: lookalike, x0: (chars[lookalike] as Char).x0, x1: (chars[lookalike] as Char).x1 };
  const places = equalsSigns(page, line.box).flatMap((sign): EqualsPlace[] => {
    const mid = (sign.x0 + sign.x1) / 2;
    const over = chars.findIndex((c) => c.x0 <= mid && mid <= c.x1);
    if (over >= 0 && /^[-.·。]$/.test((chars[over] as Char).text) && between(over)) return [{ replace: over, ...sign }];
    const next = chars.findIndex((c) => c.x0 > mid);
    if (next > firstOperator + 1 && (over < 0 || over === next - 1) && (chars[next - 1] as Char).x1 < mid && between(next, next)) return [{ insertBefore: next, ...sign }];
    return [];
  });
  return places.length === 1 ? places[0] : undefined;
}

/** What the recogniser reads for a blurred "=" (measured on the synthetic hard pages). */
const EQUALS_LOOKALIKES = ['元', '年', 'm'];
/**
 * A character read from the ink where the recogniser read another (an "=" put back, a + read as
 * ÷) is a doubtful character: it can confirm a right answer (above the grader's floor) but never
 * call one wrong (below its minimum).
 */
const INK_GUESSED = (CORRECT_CHAR_FLOOR + DEFAULT_MIN_CHAR_CONFIDENCE) / 2;

/** A box on the flattened page → the axis-aligned box around it in the photo. */
function sourceBox(b: Box, toSource: (x: number, y: number) => [number, number]): [number, number, number, number] {
  const corners = [toSource(b.x, b.y), toSource(b.x + b.w, b.y), toSource(b.x + b.w, b.y + b.h), toSource(b.x, b.y + b.h)];
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const x = Math.round(Math.min(...xs));
  const y = Math.round(Math.min(...ys));
  return [x, y, Math.round(Math.max(...xs)) - x, Math.round(Math.max(...ys)) - y];
}

function cropJpeg(page: Mat, b: Box): Buffer {
  const pad = Math.round(b.h * 0.3);
  const x = Math.max(0, Math.floor(b.x - pad));
  const y = Math.max(0, Math.floor(b.y - pad));
  const w = Math.min(page.cols - x, Math.ceil(b.w + 2 * pad));
  const h = Math.min(page.rows - y, Math.ceil(b.h + 2 * pad));
  return cv.imencode('.jpg', page.getRegion(new cv.Rect(x, y, Math.max(1, w), Math.max(1, h))), [cv.IMWRITE_JPEG_QUALITY, 80]);
}
