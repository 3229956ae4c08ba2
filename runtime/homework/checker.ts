import { randomUUID } from 'node:crypto';
import { collectGarbage, cv, type Mat } from '../../models/cv.js';
import { OcrEngine, type OcrLine, type Recognized } from '../../models/ocr/index.js';
import { type Circle, comparisonRings, eraseComparisonCircles, hasDotsAboveAndBelow, type InkMark, inkExtent, inkMarks, isPenMark, markBounds, preparePage } from '../../models/page/index.js';
import { OperatorShapes } from '../../models/page/operator-shape.js';
import { DEFAULT_MIN_CHAR_CONFIDENCE, type GradeOptions, type GradeResult, gradeProblem, mayBeRight, normaliseMathDetailed, OPERATORS, type WeakChar } from '../../scenes/homework/arithmetic.js';
import type { CheckedItem, PageCheck } from '../../scenes/homework/types.js';
import type { Logger } from '../log.js';
import { type Char, CLOSING, circlesInGaps, doubtedLines, INK_GUESSED, isDigit, OPENING, OPERATOR, readSignsFromInk, REMAINDER_GAP, signOf, UNREAD_SIGN_CONFIDENCE, withCircleSigns } from './ink-reading.js';
import { type Box, confidenceOf, type InkNote, isCounted, type PageItem, pageItems, type Piece, sameRow, SPLIT_GAP, union } from './page-items.js';

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

const round = (ms: number): number => Math.round(ms * 10) / 10;

/**
 * The lamp's look at a homework page: page pipeline → OCR → arithmetic grading. Models load
 * once; `check` runs per photo. Everything the lamp cannot judge itself (not arithmetic, or not
 * sure enough) comes out `uncertain` and is for the cloud.
 */
export class HomeworkChecker {
  private constructor(
    private readonly ocr: OcrEngine,
    private readonly shapes: OperatorShapes,
    private readonly opts: CheckerOptions,
  ) {}

  static async load(opts: CheckerOptions): Promise<HomeworkChecker> {
    const shapes = OperatorShapes.load();
    return new HomeworkChecker(await OcrEngine.load({ modelsDir: opts.modelsDir, log: opts.log }), shapes, opts);
  }

  async check(image: Buffer | Mat, opts: { skipQuality?: boolean } = {}): Promise<PageResult> {
    const t0 = performance.now();
    // The previous page's images are unreferenced now: free their pixels (see collectGarbage).
    collectGarbage();
    const prepared = await preparePage(image, { dumpDir: this.opts.dumpDir, skipQuality: opts.skipQuality });
    const t1 = performance.now();
    if (!prepared.quality.ok || !prepared.page) {
      const q = prepared.quality;
      return { check: { ok: false, issue: q.issue ?? 'no_page', hint: q.hint ?? '我没看清楚，把作业本放平再试试吧' }, timings_ms: { preprocess: round(t1 - t0), ocr: 0, grade: 0 }, crops: new Map() };
    }
    const page = prepared.page;
    // The recogniser drops comparison circles and the sign in them: the circles are painted out
    // before reading, and the sign is read from its shape and put back into its line. A ring
    // crowded by its sign is known for a circle only from the gap the recogniser left for it.
    const rings = comparisonRings(page);
    const erased = eraseComparisonCircles(page, rings.sure);
    const read = await this.ocr.read(erased);
    const inGaps = circlesInGaps(read, rings.crowded);
    const circles = [...rings.sure, ...inGaps];
    const lines = withCircleSigns(read, circles.map((c) => signOf(page, c)));
    const t2 = performance.now();

    // One item per piece: item `index` is pieces[index - 1].
    const items: CheckedItem[] = [];
    const pieces = pageItems(doubtedLines(lines.map((l) => this.withInk(page, l)), page.cols));
    await this.readOpenedBlanks(page, pieces);
    await this.readMissingAnswers(page, pieces);
    await this.readDigitsAfterDots(page, pieces);
    const ink: PageInk = { page, erased: eraseComparisonCircles(erased, inGaps), circles };
    for (const piece of pieces) {
      const index = items.length + 1;
      const bbox = sourceBox(piece.box, prepared.toSource);
      const confidence = Math.round(piece.confidence * 1000) / 1000;
      if (!piece.arithmetic) {
        items.push({ index, question: piece.text, student_answer: piece.answer ?? '', correct_answer: null, verdict: 'uncertain', confidence, bbox, kind: 'not_arithmetic', reason: 'not_arithmetic', judged_by: 'lamp' });
        continue;
      }
      const g = this.grade(ink, piece);
      items.push({ index, question: g.question, student_answer: g.student_answer, correct_answer: g.correct_answer, verdict: g.verdict, confidence: Math.round(g.confidence * 1000) / 1000, bbox, kind: g.kind, reason: g.reason, judged_by: 'lamp' });
    }
    await this.readAgain(page, items, pieces);
    const crops = new Map<number, Buffer>();
    for (const it of items) {
      if (it.verdict !== 'uncertain') continue;
      crops.set(it.index, cropJpeg(page, (pieces[it.index - 1] as PageItem).box));
    }
    const t3 = performance.now();
    this.opts.log?.debug({ lines: lines.length, items: items.length }, 'page checked');
    const timings = { preprocess: round(t1 - t0), ocr: round(t2 - t1), grade: round(t3 - t2) };
    return { check: { ok: true, check_id: randomUUID(), items, timings_ms: timings }, timings_ms: timings, crops };
  }

  /**
   * A problem left uncertain, or about to be marked wrong on a reading not quite sure
   * (`REREAD_WRONG_BELOW`), is read once more, cut out of the page a little wider and taller than
   * its box (`REREAD_PADS`): on a blurred page another crop often reads the same ink with more
   * confidence, or reads the printed sign the first reading garbled ("8元6=48"). Only a right
   * answer is taken from it (see confirmedByRereading), and a wrong one it reads otherwise is
   * left uncertain (see doubtedByRereading); it never makes a problem wrong.
   */
  private async readAgain(page: Mat, items: CheckedItem[], pieces: readonly PageItem[]): Promise<void> {
    const pieceOf = (it: CheckedItem): PageItem => pieces[it.index - 1] as PageItem;
    const rereadable = (it: CheckedItem): boolean => (it.verdict === 'incorrect' ? it.confidence < REREAD_WRONG_BELOW : it.verdict === 'uncertain' && !REREAD_REASONS_EXCLUDED.has(it.reason ?? ''));
    const again = items.filter((it) => rereadable(it) && pieceOf(it).arithmetic && !/[○◯〇]/.test(it.question));
    if (again.length === 0) return;
    const crops = again.flatMap((it) => {
      const b = pieceOf(it).box;
      return REREAD_PADS.map((pad) => cropOf(page, padded(page, b, { x: 0, y: 0, w: b.w, h: b.h }, Math.round(pad.x * b.h), Math.round(pad.y * b.h))));
    });
    let read: (Recognized | undefined)[];
    try {
      read = await this.ocr.recognize(crops);
    } catch (err) {
      this.opts.log?.warn({ err, problems: again.length }, 'reading problems again failed; their verdicts stand as first read');
      return;
    }
    const opts = { minConfidence: this.opts.minConfidence };
    again.forEach((it, k) => {
      const readings = read.slice(k * REREAD_PADS.length, (k + 1) * REREAD_PADS.length);
      if (it.verdict === 'incorrect') {
        if (doubtedByRereading(pieceOf(it), readings, opts)) Object.assign(it, { verdict: 'uncertain', reason: 'answer_misread' });
        return;
      }
      const g = confirmedByRereading(pieceOf(it), readings, opts);
      if (g) Object.assign(it, { question: g.question, student_answer: g.student_answer, correct_answer: g.correct_answer, verdict: g.verdict, confidence: Math.round(g.confidence * 1000) / 1000, kind: g.kind, reason: 'read_again' });
    });
  }

  /** The line with what its ink says about its signs; as read when looking at the ink fails (the page is still graded). */
  private withInk(page: Mat, line: OcrLine): OcrLine {
    try {
      return readSignsFromInk(page, line, this.shapes);
    } catch (err) {
      this.opts.log?.warn({ err, chars: line.chars.length }, 'reading the signs of a line from its ink failed; the line is graded as read');
      return line;
    }
  }

  /**
   * Grades a problem, and before calling it wrong checks that the ink agrees with the reading:
   * no wide gap in the answer where the next problem's digits may have run in (see
   * answerCutAtGap), no more digit-sized marks after the "=" than the answer read has digits (see digitLost), no
   * doubted digit whose second choice may make the answer right (see rightAsSecondChoice), no
   * + whose strokes do not cross (it may be a ÷: "36÷4=9" read as "36+4=0"), and for a
   * comparison no printed sign dropped silently ("9×6○55" read as "96○55").
   */
  private grade(ink: PageInk, piece: PageItem): GradeResult {
    // Where the answer goes is bare paper: between an empty fill-in bracket's halves, or in the
    // slot after the "=" (looked at by readMissingAnswers).
    const blankSeen = piece.bracketGap ? bareBetween(ink.page, piece.box, piece.bracketGap) : piece.bareSlot === true;
    const opts = { minConfidence: this.opts.minConfidence };
    const childs = writtenInBlank(ink.page, piece);
    const g = gradeWithSigns(piece, blankSeen, opts, childs.size > 0);
    if (g.verdict !== 'incorrect') return g;
    const cut = answerCutAtGap(piece, opts);
    if (cut) return cut;
    if (g.kind !== 'compare' && (g.kind === 'fill_blank' ? digitLostInBracket(ink.page, piece, g.student_answer) : digitLost(ink.page, piece, g.student_answer))) return { ...g, verdict: 'uncertain', reason: 'answer_digit_lost' };
    if (g.kind !== 'compare' && rightWithSignInGap(piece, opts, childs)) return { ...g, verdict: 'uncertain', reason: 'operator_may_be_lost' };
    if (g.kind !== 'compare' && rightWithSignReadAsDigit(ink.page, piece, opts)) return { ...g, verdict: 'uncertain', reason: 'operator_may_be_misread' };
    if (rightAsSecondChoice(piece, opts)) return { ...g, verdict: 'uncertain', reason: 'answer_misread' };
    if (g.kind === 'fill_blank' && bracketTakenForDigit(piece)) return { ...g, verdict: 'uncertain', reason: 'answer_misread' };
    // A + without a crossing: wrong only if it is wrong as the ÷ the ink suggests too (and then
    // shown as that ÷, which is what the page most likely says). A blank is one either way.
    const other = g.reason === 'blank' ? undefined : alternateReading(piece, opts);
    if (other && other.verdict !== 'incorrect') return { ...g, verdict: 'uncertain', reason: 'operator_may_be_misread' };
    if (other) return other;
    if (g.kind === 'compare' && comparisonMisread(ink.erased, piece, g, ink.circles)) return rightWhateverTheSign(ink.erased, piece, g, ink.circles, opts) ?? { ...g, verdict: 'uncertain', reason: 'printed_mark_unread' };
    return g;
  }

  /**
   * A fill-in blank that opens its problem ("( 1 )+15=17") is often read from its ")" on: the
   * detector leaves out the "(" with what the child wrote after it (a thin digit, or nothing),
   * and the problem stayed uncertain (7 problems on 40 pages per level, 12440–12479). The paper
   * left of the ")", up to OPENED_BLANK_SLOT line heights or the problem before it on the row, is
   * read on its own: a bracket alone opens a blank whose paper grade() looks at (`bracketGap`),
   * a bracket and digits are the child's answer (the bracket is a guess when it is not read).
   */
  private async readOpenedBlanks(page: Mat, pieces: PageItem[]): Promise<void> {
    const open = pieces.flatMap((p) => {
      const first = p.chars?.[0];
      // Or the whole bracket is left out, and the piece starts at its sign ("+32=83" for
      // "(    )+32=83", 5 such blanks on 80 hard pages): then its ")" must be read too.
      const closed = first !== undefined && CLOSING.test(first.text);
      if (!p.arithmetic || !first || !(closed || OPERATOR.test(first.text))) return [];
      const before = Math.max(0, ...pieces.filter((q) => q !== p && q.box.x + q.box.w <= first.x0 && sameRow(q.box, p.box)).map((q) => q.box.x + q.box.w));
      const x = Math.max(before, first.x0 - OPENED_BLANK_SLOT * p.box.h);
      const ink = first.x0 - x >= 2 ? inkBox(page, answerSlot(page, p.box, x - 1, (first.x0 - x) / p.box.h), p.box.h) : undefined;
      return ink ? [{ p, first, closed, ink }] : [];
    });
    if (open.length === 0) return;
    const read = await this.ocr.recognize(open.map(({ ink }) => cropOf(page, ink)));
    open.forEach(({ p, first, closed, ink }, i) => {
      const r = read[i];
      const all = onPage(r?.chars, ink);
      // The crop may reach into the ")" the piece already has; without one, it must hold the ")".
      const last = all.at(-1);
      const closing = last && CLOSING.test(last.text) ? { ...last, text: ')' } : undefined;
      if (!closed && !closing) return;
      const chars = closing ? all.slice(0, -1) : all;
      const bracket = chars[0] && OPENING.test(chars[0].text) ? chars[0] : undefined;
      const digits = chars.slice(bracket ? 1 : 0);
      if (!r || !digits.every(isDigit) || (digits.length === 0 ? !bracket : !readAnswer(digits, r.confidence))) return;
      const opening: Char = bracket ? { ...bracket, text: '(' } : { text: '(', confidence: INK_GUESSED, x0: ink.x, x1: (digits[0] as Char).x0 };
      if (digits.length === 0) {
        // The recogniser's places for two characters read alone meet: the gap is the paper
        // between the ink of the crop's outermost marks.
        const gap = closed ? { x0: opening.x1, x1: first.x0 } : bracketsApart(page, ink, p.box.h);
        if (!gap) return;
        p.bracketGap = gap;
      }
      addChars(p, [opening, ...digits, ...(closed ? [] : [closing as Char])], 'start');
    });
  }

  /**
   * The detector misses short answers written apart from the problem ("18-14=  4"): for a
   * problem that ends at its equals sign, the slot to its right is read on its own, and what is
   * found there becomes the answer. A slot with nothing readable stays blank.
   */
  private async readMissingAnswers(page: Mat, pieces: PageItem[]): Promise<void> {
    // A remainder's digit after its dots ("16÷5=3……") is missed the same way: its slot is just
    // right of the dots, which end where the piece's box does. On a blurred page the dots may be
    // read as one point or not at all, with the digit lost ("31÷5=6." or "44÷6=7" for 31÷5=6……1,
    // 44÷6=7……2): in a division that does not come out even, the slot starts after what was read,
    // and what was read there stands for the remainder's dots (a guess, see below).
    const slotOf = (p: PageItem): { slot: Box; afterEquals: boolean; dotsGuessed?: true } | undefined => {
      if (/[=＝]\s*$/.test(p.text)) return { slot: answerSlot(page, p.box, p.equalsX, 3.5), afterEquals: true };
      if (/(…|[.·。]{2,})\s*$/.test(p.text)) return { slot: answerSlot(page, p.box, p.box.x + p.box.w - 0.3 * p.box.h, 1.5), afterEquals: false };
      const last = p.chars?.at(-1);
      if (!last || !unevenDivision(p.text)) return undefined;
      return { slot: answerSlot(page, p.box, last.x1, (p.box.x + p.box.w - last.x1) / p.box.h + REMAINDER_SLOT), afterEquals: false, dotsGuessed: true };
    };
    // Only slots with ink in them are read again, cut to the ink: a lone digit in a wide strip
    // of paper is what the recogniser misses. A bare slot after "=" is noted: nothing is written.
    const inked: { p: PageItem; slot: Box; afterEquals: boolean; dotsGuessed?: true; dotsSeen?: boolean; narrow?: boolean }[] = [];
    for (const p of pieces) {
      if (p.arithmetic && bareAfterAnswer(page, p, pieces)) p.nothingAfter = true;
      const open = p.arithmetic ? slotOf(p) : undefined;
      if (!open) continue;
      open.slot = endedByNext(open.slot, p, pieces);
      const ink = inkBox(page, open.slot, p.box.h, open.afterEquals);
      // A remainder's digit is read cut to its own ink (see remainderDigit); when no mark stands
      // out, in the line's band, not in the taller box around the ink (a crop much taller than
      // the digit made the recogniser see only dots).
      const digit = ink && !open.afterEquals ? remainderDigit(page, open.slot, p.box.h) : undefined;
      if (ink) inked.push({ p, slot: open.afterEquals ? ink : (digit?.box ?? lineBand(page, ink, p.box)), afterEquals: open.afterEquals, ...(open.dotsGuessed ? { dotsGuessed: true as const } : {}), dotsSeen: digit?.dotsSeen, narrow: digit?.narrow });
      else if (open.afterEquals && !cutByEdge(page, open.slot)) p.bareSlot = true;
    }
    if (inked.length === 0) return;
    const read = (await this.ocr.recognize(inked.map(({ slot }) => cropOf(page, slot)))).map((r, i) => r && { confidence: r.confidence, chars: onPage(r.chars, (inked[i] as (typeof inked)[number]).slot) });
    // A lone digit cut out is often read as nothing at all, where the recogniser reads it in its
    // problem ("2×2=4" on a hard synthetic page: nothing, or "." at 0.25, cut to the 4; "2x2=4"
    // with the 4 at 0.77 in the problem's box): an unread answer after "=" is read once more with
    // its problem, and what stands right of the piece's own "=" is the answer.
    // So is a remainder's lone digit ("16÷5=3……1": nothing, cut to the 1): read with its problem,
    // it is taken only when the answer read there is the quotient already read, dots, and one digit.
    const unread = inked.flatMap((it, i) => (!readAnswer(read[i]?.chars ?? [], read[i]?.confidence ?? 0) ? [i] : []));
    if (unread.length > 0) {
      const boxes = unread.map((i) => withProblem(page, inked[i] as (typeof inked)[number]));
      const again = await this.ocr.recognize(boxes.map((b) => cropOf(page, b)));
      unread.forEach((i, k) => {
        const { p, afterEquals } = inked[i] as (typeof inked)[number];
        const chars = onPage(again[k]?.chars, boxes[k] as Box);
        // Only what stands right of the piece's own "=" (the re-read may take a × for one).
        const from = p.equalsX ?? Infinity;
        const answer = chars.some((c) => /^[=＝]$/.test(c.text)) ? chars.filter((c) => (c.x0 + c.x1) / 2 > from && !/^[=＝]$/.test(c.text)) : [];
        if (afterEquals) {
          if (answer.length > 0) read[i] = { confidence: confidenceOf(answer).confidence, chars: answer };
          return;
        }
        const digit = remainderAfter(p.text, answer);
        if (digit) read[i] = { confidence: digit.confidence, chars: [digit] };
      });
    }
    inked.forEach(({ p, slot, afterEquals, dotsGuessed, dotsSeen, narrow }, i) => {
      const r = read[i];
      const chars = r?.chars ?? [];
      // The dots the slot begins with left out (the piece has its own).
      const first = chars.findIndex((c) => !/^[….·。]$/.test(c.text));
      const added = first < 0 ? [] : chars.slice(first);
      const answer = added.map((c) => c.text).join('');
      if (dotsGuessed) {
        // Only a lone digit after dots (read as the piece's last point, read in the slot, or seen
        // in its ink) is a remainder, and its dots only a guess: they can confirm a right answer,
        // and condemn a wrong one only if it is wrong whether they are dots, a point or nothing
        // (see weakCharsOf). Anything else leaves the piece as it was.
        const dots = /[.·。]\s*$/.test(p.text) || first > 0 || dotsSeen === true;
        const one = r !== undefined && r.confidence < 0.5 && narrow === true && answer === '1';
        if (!r || !dots || !/^\d$/.test(answer) || (r.confidence < 0.5 && !one)) return;
        p.text = p.text.replace(/[.·。]?\s*$/, '……');
        const last = p.chars?.at(-1);
        const point = last && /^[.·。]$/.test(last.text) ? p.chars?.pop() : undefined;
        p.chars?.push({ text: '……', confidence: Math.min(point?.confidence ?? 1, INK_GUESSED), x0: point?.x0 ?? last?.x1 ?? slot.x, x1: (added[0] as Char).x0 });
        p.minCharConfidence = Math.min(p.minCharConfidence, INK_GUESSED);
        if (one) {
          addGuessedOne(p, added[0] as Char);
          return;
        }
      }
      if (!r || !readAnswer(added, r.confidence)) {
        // Something is written there that cannot be read: never call it blank.
        p.minCharConfidence = Math.min(p.minCharConfidence, UNREAD_SIGN_CONFIDENCE);
        return;
      }
      const own = confidenceOf(added);
      // A division's answer read as two digits far apart lost the remainder's dots between them
      // ("4÷3=11" for 1……1): they are put back as a guess, like dots guessed before a lone digit.
      const lost = afterEquals && leavesRemainder(p.text) ? dotsLostBetween(page, slot, added, p.box.h) : undefined;
      if (lost !== undefined) {
        added.splice(lost, 0, { text: '……', confidence: INK_GUESSED, x0: (added[lost - 1] as Char).x1, x1: (added[lost] as Char).x0 });
        p.minCharConfidence = Math.min(p.minCharConfidence, INK_GUESSED);
      }
      addChars(p, added, 'end', own);
    });
  }

  /**
   * A division whose answer still ends in a remainder's dots after the slots were read lost the
   * digit after them: read as one more dot ("11÷3=3....." for 3……2, the last dot read where the
   * 2 is), or dropped from a slot read after the "=" ("40÷6=6..." for 6……4, the 4 written high).
   * Its slot starts at the first of the dots read (where the recogniser places the last one is
   * no guide: "6..." for six dots and a 1 put it past the 1); the rightmost mark there at least 0.4
   * line heights tall with the dots' specks before it (see remainderDigit) is read cut to its own
   * ink, and a lone digit read at 0.5 or more is the remainder (a 1 read at less, a guess: see
   * addGuessedOne). A dot is never that tall, so a remainder left blank stays blank.
   */
  private async readDigitsAfterDots(page: Mat, pieces: PageItem[]): Promise<void> {
    const open = pieces.flatMap((p) => {
      const chars = p.chars ?? [];
      if (!p.arithmetic || !/÷\d+[=＝]\s*\d+\s*(…|[.·。]{2,})\s*$/.test(p.text)) return [];
      let first = chars.length;
      while (first > 0 && /^[….·。]$/.test((chars[first - 1] as Char).text)) first--;
      const dots = chars[first];
      if (!dots) return [];
      const slot = endedByNext(answerSlot(page, p.box, dots.x0 - 1, (p.box.x + p.box.w - dots.x0) / p.box.h + DIGIT_AFTER_DOTS), p, pieces);
      const digit = remainderDigit(page, slot, p.box.h);
      return digit?.dotsSeen ? [{ p, box: digit.box, narrow: digit.narrow }] : [];
    });
    if (open.length === 0) return;
    const read = await this.ocr.recognize(open.map(({ box }) => cropOf(page, box)));
    open.forEach(({ p, box, narrow }, i) => {
      const r = read[i];
      // The crop, padded, may hold the last dot too.
      const chars = onPage(r?.chars, box).filter((c) => !/^[….·。]$/.test(c.text));
      const digit = chars[0];
      if (!r || chars.length !== 1 || !digit || !isDigit(digit)) return;
      if (r.confidence >= 0.5) addChars(p, chars, 'end');
      else if (narrow && digit.text === '1') addGuessedOne(p, digit);
    });
  }

  async release(): Promise<void> {
    await this.ocr.release();
  }
}

/** How much wider and taller than its box a problem is cut out to be read again, in line heights per side. */
const REREAD_PADS: readonly { x: number; y: number }[] = [
  { x: 0.3, y: 0.15 },
  { x: 0.3, y: 0.3 },
];

/**
 * A wrong answer read with less confidence than this is read again before it is marked (see
 * doubtedByRereading). Reading every wrong answer again cost 110 ms a page (a page has 5–7 on
 * the synthetic sets); three in four are read at 0.97 or more (hard pages 12000–12039), and the
 * right answers misread as wrong that were found (hard-11945, 11966, 12024) at 0.86–0.96.
 */
const REREAD_WRONG_BELOW = 0.97;

/**
 * Uncertain verdicts a second reading does not overrule: the ink showed more of the answer than
 * was read, or a printed mark the recogniser never reads (a comparison's sign).
 */
const REREAD_REASONS_EXCLUDED = new Set(['answer_digit_lost', 'printed_mark_unread']);

/**
 * A reading's digits in order; its points, remainder's dots, fraction bars and brackets by how
 * many digits stand before them; and its operators and relation signs by the same count ("?" for
 * one whose ink supports another sign too).
 */
interface Skeleton { digits: string; marks: Set<string>; signs: Map<number, string> }

/** The skeleton of a reading, read from its text as the grader reads it (normaliseMathDetailed: x for ×, ＝ for =, O for 0 …). */
function skeleton(r: { text: string; chars?: readonly { text: string; alt?: string }[] }): Skeleton {
  const chars: readonly { text: string; alt?: string }[] = r.chars ?? [...r.text].map((text) => ({ text }));
  // Where in the raw text the characters whose ink supports another sign stand.
  const doubted: number[] = [];
  let offset = 0;
  for (const c of chars) {
    if (c.alt) doubted.push(offset);
    offset += c.text.length;
  }
  const n = normaliseMathDetailed(chars.map((c) => c.text).join(''));
  const out: Skeleton = { digits: '', marks: new Set(), signs: new Map() };
  for (let i = 0; i < n.text.length; i++) {
    const ch = n.text[i] as string;
    const at = out.digits.length;
    const [from, to] = n.source[i] ?? [0, 0];
    if (/\d/.test(ch)) out.digits += ch;
    else if (ch === '…') out.marks.add(`R${at}`);
    else if (/[./()]/.test(ch)) out.marks.add(`${ch}${at}`);
    else if (/[+\-×÷=<>○]/.test(ch)) out.signs.set(at, doubted.some((d) => from <= d && d < to) ? '?' : ch);
  }
  return out;
}

/** Whether a reading's brackets pair up. */
const balanced = (marks: Set<string>): boolean => [...marks].filter((m) => m.startsWith('(')).length === [...marks].filter((m) => m.startsWith(')')).length;

/**
 * Whether a second reading of a problem (`again`) may stand in for its first: the same digits in
 * order, and the same points, remainder's dots, fraction bars and brackets between the same
 * digits — a second crop that sees a point in "16" would make a forgotten point right, one that
 * loses it ("12×3=36" for 1.2×3) or the brackets of "(2+3)×4=14" would make a wrong answer
 * right. Two exceptions: a point of the first where the second reads an operator (a minus read as
 * a point, "68.40=28"), and brackets the second adds to a first whose brackets do not pair
 * ("4×29-12)=68"). Every sign the first read, however doubtfully, stands in the same place and
 * is the same sign: a child's + for a printed - is the mistake a second crop of a faint sign must
 * not excuse ("69-31=100" read again as "69+31=100"), and a sign whose ink supports another too
 * is settled by nothing a crop reads. Only what the first reading garbled may be read plainly:
 * that is what reading again is for ("8元6=48").
 */
export function sharesReading(first: Piece, again: { text: string; chars?: readonly { text: string }[] }): boolean {
  const a = skeleton(first);
  const b = skeleton(again);
  const added = [...b.marks].filter((m) => !a.marks.has(m) && !(/^[()]/.test(m) && !balanced(a.marks)));
  const lost = [...a.marks].filter((m) => !b.marks.has(m) && !(m.startsWith('.') && /[+\-×÷]/.test(b.signs.get(Number(m.slice(1))) ?? '')));
  return a.digits === b.digits && added.length === 0 && lost.length === 0 && [...a.signs].every(([at, sign]) => b.signs.get(at) === sign);
}

/**
 * The verdict a problem gets from being read again (`again`: the other crops' readings), when
 * that settles it: right, in a reading that shares the first one (see sharesReading) and is sure
 * enough to mark a right answer (gradeProblem's rule 2); every crop read with the first's digits,
 * none of them wrong and none a comparison (whose sign is the child's answer). Anything else
 * leaves the first verdict.
 */
export function confirmedByRereading(first: Piece, again: readonly (Recognized | undefined)[], opts: GradeOptions = {}): GradeResult | undefined {
  const graded = again.flatMap((r) => (r ? [{ r, g: gradeProblem(r, opts) }] : []));
  const digits = skeleton(first).digits;
  if (graded.some(({ r, g }) => g.verdict === 'incorrect' || g.kind === 'compare' || skeleton(r).digits !== digits)) return undefined;
  return graded.find(({ r, g }) => g.verdict === 'correct' && sharesReading(first, r))?.g;
}

/**
 * Whether reading a problem again casts doubt on its wrong answer: a crop reads it right, or
 * reads as many digits as the first reading but not the same ones — a digit misread one of the
 * two times ("8÷2=4" read as "8÷2=1" at 0.96, and again as "8+2=4", on a hard synthetic page).
 * A crop that reads fewer or more digits is not heard: the wider crops lose a remainder's last
 * digit or its dots, or take in a neighbour's mark, far more often than the first reading errs.
 */
export function doubtedByRereading(first: Piece, again: readonly (Recognized | undefined)[], opts: GradeOptions = {}): boolean {
  const digits = skeleton(first).digits;
  return again.some((r) => {
    if (!r) return false;
    const other = skeleton(r).digits;
    return (other.length === digits.length && other !== digits) || gradeProblem(r, opts).verdict === 'correct';
  });
}

/**
 * Grades a problem with what the ink says about its operators. An operator whose ink is
 * unmistakable (a ÷ with both dots, a bare -) is not taken for its look-alike. When the answer
 * is right only if a printed + is ÷ (the recogniser's usual mistake on a blurred page) and that
 * + has no crossing, the ink decides: correct. A wrong answer is concluded this way only for a
 * remainder after a + or - ("13+2=6……2": only a division has one) that is wrong however its sign
 * and doubtful characters are read. Bare paper seen where the answer goes (`blankSeen`) makes an
 * empty reading a blank.
 */
export function gradeWithSigns(piece: PageItem, blankSeen: boolean, opts: GradeOptions = {}, blankWrittenByChild = false): GradeResult {
  const inkConfirmed = new Set((piece.ink ?? []).flatMap((n) => (n.sure ? [rawIndex(piece, n.at, n.read) ?? -1] : [])));
  const inkRuledOut = new Map((piece.ink ?? []).flatMap((n) => (n.ruledOut ? [[rawIndex(piece, n.at, n.read) ?? -1, n.ruledOut] as const] : [])));
  const input = { text: piece.text, confidence: piece.confidence, minCharConfidence: piece.minCharConfidence, inkConfirmed, inkRuledOut, blankSeen, nothingAfterAnswer: piece.nothingAfter, weakChars: weakCharsOf(piece), blankWrittenByChild };
  const g = gradeProblem(input, opts);
  if (g.verdict !== 'uncertain') return g;
  const pointed = g.reason === 'decimal_point_maybe_lost' ? pointSeenInAnswer(piece, opts) : undefined;
  if (pointed) return pointed;
  const other = alternateReading(piece, opts);
  if (other?.verdict === 'correct') return { ...other, reason: 'sign_read_from_ink' };
  return other?.verdict === 'incorrect' && g.kind === 'remainder' ? other : g;
}

/**
 * "1.7-0.3=14" for 1.4: a decimal point blurred away between two of the answer's digits, where
 * the recogniser still gave a point POINT_SEEN or more. Read with the point there, a right answer
 * is right (undefined otherwise: the point only ever confirms). On hard synthetic pages
 * (11800–11849, 12440–12479) the recogniser gave that much between the digits of 7 of 23
 * answers whose point it lost, and between 2 of 1,524 pairs of digits in answers to problems
 * without decimals.
 */
export function pointSeenInAnswer(piece: Piece, opts: GradeOptions = {}): GradeResult | undefined {
  const chars = piece.chars ?? [];
  const eq = chars.findLastIndex((c) => /^[=＝]$/.test(c.text));
  if (eq < 0) return undefined;
  for (let i = eq + 2; i < chars.length; i++) {
    if (!isDigit(chars[i]) || !isDigit(chars[i - 1]) || ((chars[i] as Char).pointBefore ?? 0) < POINT_SEEN) continue;
    const text = [...chars.slice(0, i).map((c) => c.text), '.', ...chars.slice(i).map((c) => c.text)].join('');
    const g = gradeProblem({ text, confidence: piece.confidence, minCharConfidence: piece.minCharConfidence }, opts);
    if (g.verdict === 'correct') return { ...g, reason: 'decimal_point_seen' };
  }
  return undefined;
}

/** The recogniser's probability for a point it did not read from which the point is taken as seen (see pointSeenInAnswer). */
const POINT_SEEN = 0.1;

/**
 * A wrong answer whose digits stand apart by a gap wider than SPLIT_GAP line heights after its
 * last "=", with three or more characters after the gap: those are more likely the next
 * problem's, its signs lost, than the answer's ("()+15=82" run into "32○85" on a tilted hard
 * synthetic page, read as "(67)+15=823285"). Graded up to the gap: right there is right;
 * anything else leaves it uncertain. Undefined when there is no such gap, and for a division or
 * an answer with dots: a remainder's digits stand apart when its dots are lost or read small
 * ("15÷7=2……2" read as "=2  2": true wrong answers left uncertain on unseen pages 12400–12439).
 */
export function answerCutAtGap(piece: PageItem, opts: GradeOptions = {}): GradeResult | undefined {
  const chars = piece.chars ?? [];
  const eq = chars.findLastIndex((c) => /^[=＝]$/.test(c.text));
  if (eq < 0 || chars.some((c, i) => c.text === '÷' || c.alt === '÷' || (i > eq && /[.·。…]/.test(c.text)))) return undefined;
  const cut = chars.findIndex((c, i) => i > eq + 1 && i + 3 <= chars.length && isDigit(c) && isDigit(chars[i - 1]) && c.x0 - (chars[i - 1] as Char).x1 >= SPLIT_GAP * piece.box.h);
  if (cut < 0) return undefined;
  const kept = chars.slice(0, cut);
  const own = confidenceOf(kept);
  const shorter: PageItem = {
    ...piece,
    text: kept.map((c) => c.text).join(''),
    chars: kept,
    confidence: own.confidence,
    minCharConfidence: lowered(piece, confidenceOf(chars)) ? piece.minCharConfidence : own.minCharConfidence,
    ink: piece.ink?.filter((n) => n.at < cut),
  };
  const g = gradeWithSigns(shorter, false, opts);
  return g.verdict === 'correct' ? { ...g, reason: 'answer_cut_at_gap' } : { ...g, verdict: 'uncertain', reason: 'answer_runs_on' };
}

/**
 * The piece's text with the first other reading its ink supports (a + without a crossing read
 * as ÷), where that sign stands in it, and the ink's note.
 */
function otherReading(piece: Piece): { text: string; index: number; note: InkNote & { alt: string } } | undefined {
  for (const n of piece.ink ?? []) {
    const index = n.alt ? rawIndex(piece, n.at, n.read) : undefined;
    if (n.alt === undefined || index === undefined) continue;
    return { text: piece.text.slice(0, index) + n.alt + piece.text.slice(index + n.read.length), index, note: { ...n, alt: n.alt } };
  }
  return undefined;
}

/**
 * The problem graded with the other reading its ink supports (see otherReading). The
 * recogniser's doubt about the character it read there is not a doubt about the ink's reading,
 * which counts as a guessed character instead: it can confirm a right answer, not condemn one.
 * A + the ink reads as ÷ is graded with the ÷ not read as its own look-alike -, which the + read
 * is never mistaken for ("36÷4=32" read as 36+4=32, right only as 36-4: wrong, as it would be
 * without the ink); its look-alike × was graded with the + read. When the piece has weak
 * characters, the sign is one of them: the answer is wrong only if wrong as any operator there
 * however they are read (then "36÷4=32" with a doubtful digit is uncertain).
 */
export function alternateReading(piece: Piece, opts: GradeOptions = {}): GradeResult | undefined {
  const other = otherReading(piece);
  if (!other) return undefined;
  const { text, index, note } = other;
  const settled = note.read === '+' && note.alt === '÷' ? { inkConfirmed: new Set([index]) } : {};
  // The piece's weak characters stand where they stood when the other reading is as long.
  const weak = note.alt.length === note.read.length ? weakCharsOf(piece) : undefined;
  const weakChars = weak && [...weak.filter((w) => w.at !== index), { at: index }];
  return gradeProblem({ text, ...confidenceWithGuess(piece, note.at), ...settled, weakChars, nothingAfterAnswer: piece.nothingAfter }, opts);
}

/** Below this a digit's reading is doubted when its second choice would make the answer right. */
const SECOND_CHOICE_DOUBT = 0.9;

/**
 * Whether a digit read below `SECOND_CHOICE_DOUBT` may make the answer right as the recogniser's
 * second choice ("4+7×8=60" read as "=50", the 5 at 0.78 with 6 second, on a hard synthetic page;
 * "27÷4=6……3" read as "27+4=8.", the 8 at 0.51 with 6 second: 6 with its remainder lost), as read
 * or with the other reading of a sign its ink supports: a wrong answer that close to a right one
 * may be the lamp's misreading. A reading already uncertain with the digit as read is no closer
 * to right for an uncertain one with its second choice ("61+7=7……12", a division only by its
 * remainder, is uncertain with any remainder): only a right one counts there.
 */
export function rightAsSecondChoice(piece: Piece, opts: GradeOptions = {}): boolean {
  const other = otherReading(piece);
  const texts = [piece.text, ...(other && other.note.alt.length === other.note.read.length ? [other.text] : [])];
  const sure = (text: string): GradeResult => gradeProblem({ text, confidence: 1, minCharConfidence: 1 }, opts);
  const wrongAsRead = texts.map((t) => sure(t).verdict === 'incorrect');
  return (piece.chars ?? []).some((c, k) => {
    if (c.confidence >= SECOND_CHOICE_DOUBT || !/^\d$/.test(c.text) || !/^\d$/.test(c.runnerUp ?? '')) return false;
    const at = rawIndex(piece, k, c.text);
    if (at === undefined) return false;
    return texts.some((t, i) => {
      const g = sure(t.slice(0, at) + (c.runnerUp as string) + t.slice(at + 1));
      return wrongAsRead[i] ? mayBeRight(g) : g.verdict === 'correct';
    });
  });
}

/**
 * Whether a fill-in bracket's answer was read with a digit the recogniser took for the bracket
 * second, below `SECOND_CHOICE_DOUBT`: where the bracket ends and the child's digits begin is not
 * known, and a digit may be lost under it ("(42)-37=5" read as "12)-37=5", the 1 at 0.68 with
 * "(" second, on a hard synthetic page).
 */
export function bracketTakenForDigit(piece: Piece): boolean {
  return (piece.chars ?? []).some((c) => c.confidence < SECOND_CHOICE_DOUBT && /^\d$/.test(c.text) && /^[()（）]$/.test(c.runnerUp ?? ''));
}

/** Whether what a slot was read as is an answer: a digit, read at 0.5 or more. */
function readAnswer(chars: Char[], confidence: number): boolean {
  return chars.some((c) => /\d/.test(c.text)) && confidence >= 0.5;
}

/** An answer's slot with its problem: the piece's box and the slot's ink, padded by 0.3 of the line's height. */
function withProblem(page: Mat, { p, slot }: { p: PageItem; slot: Box }): Box {
  const pad = Math.round(0.3 * p.box.h);
  const b = padded(page, { x: 0, y: 0, w: page.cols, h: page.rows }, union(p.box, slot), pad, pad);
  // Character positions are fractional: whole pixels, inside the page.
  const x = Math.floor(b.x);
  const y = Math.floor(b.y);
  return { x, y, w: Math.min(page.cols - x, Math.ceil(b.x + b.w) - x), h: Math.min(page.rows - y, Math.ceil(b.y + b.h) - y) };
}

/** A piece's confidences with its at-th character guessed from the ink (a confidence lowered for the whole piece stays). */
function confidenceWithGuess(piece: Piece, at: number): { confidence: number; minCharConfidence: number } {
  const chars = piece.chars;
  if (!chars?.length) return { confidence: piece.confidence, minCharConfidence: piece.minCharConfidence };
  const own = confidenceOf(chars);
  const guessed = confidenceOf(chars.map((c, i) => (i === at ? { ...c, confidence: Math.max(c.confidence, INK_GUESSED) } : c)));
  return { confidence: piece.confidence + guessed.confidence - own.confidence, minCharConfidence: lowered(piece, own) ? piece.minCharConfidence : guessed.minCharConfidence };
}

/** Whether the piece's confidence was lowered by something outside its characters (an unread sign, an answer read on its own). */
function lowered(piece: Piece, own: { minCharConfidence: number }): boolean {
  return piece.minCharConfidence < own.minCharConfidence;
}

/**
 * The piece's characters read below the grader's minimum, with the recogniser's second choices,
 * for the grader to read them every other way; undefined when the doubt is not only in what the
 * recogniser read (a confidence lowered for the whole piece, a character the ink put in its place).
 * A remainder's "……" guessed from the ink is an exception: the grader reads it as dots, as one
 * point and as nothing, and a wrong remainder is wrong all three ways ("58÷8=6……10"). So is a
 * minus the ink read where the recogniser read a point, which keeps the point as its second
 * choice: read as every operator, as the point and as nothing; and a sign put back beside a
 * bracket (`someSign`), read as every operator ("(95)-31=65" is wrong whatever the sign).
 */
export function weakCharsOf(piece: Piece): WeakChar[] | undefined {
  const chars = piece.chars;
  if (!chars?.length || lowered(piece, confidenceOf(chars))) return undefined;
  const weak: WeakChar[] = [];
  for (const [k, c] of chars.entries()) {
    if (c.confidence >= DEFAULT_MIN_CHAR_CONFIDENCE || !isCounted(chars, k)) continue;
    const at = rawIndex(piece, k, c.text);
    const dots = c.text === '……';
    if (at === undefined || (!dots && !c.someSign && (c.runnerUp === undefined || c.text.length !== 1))) return undefined;
    weak.push({ at, runnerUp: c.runnerUp });
  }
  return weak;
}

/**
 * Where in the piece's text its k-th character stands, if the text still reads it as `read`
 * (characters may be longer than one: a remainder's "……"); spaces in the text are skipped.
 */
function rawIndex(piece: Piece, k: number, read: string): number | undefined {
  const chars = piece.chars ?? [];
  const text = piece.text;
  let i = 0;
  for (let j = 0; j <= k; j++) {
    while (i < text.length && (text[i] as string).trim() === '') i++;
    const c = j === k ? read : chars[j]?.text;
    if (c === undefined || !text.startsWith(c, i)) return undefined;
    if (j === k) return i;
    i += c.length;
  }
  return undefined;
}

/** The page as the grader's checks see it: the flat page, the page with its circles painted out, and the circles. */
interface PageInk { page: Mat; erased: Mat; circles: Circle[] }

/** A box's ink (darker than its paper) as a mask, and its marks without specks of noise; marks in the box's pixels. */
function inkIn(page: Mat, b: Box): { mask: Mat; marks: InkMark[] } {
  const gray = page.getRegion(new cv.Rect(b.x, b.y, b.w, b.h)).bgrToGray();
  const mask = gray.threshold(Math.max(0, gray.mean().w - 45), 255, cv.THRESH_BINARY_INV);
  return { mask, marks: inkMarks(mask).filter((m) => m.area >= 8) };
}

const cropOf = (page: Mat, b: Box): Mat => page.getRegion(new cv.Rect(b.x, b.y, b.w, b.h));

/**
 * Characters read apart from a piece (in a slot, or left of it) put at its start or end: its
 * text, characters and box grow, and its confidences fall to theirs (`own`: computed by the
 * caller when it differs from the characters' own, e.g. before guessed dots were put in).
 */
function addChars(p: PageItem, added: Char[], at: 'start' | 'end', own = confidenceOf(added)): void {
  const text = added.map((c) => c.text).join('');
  p.text = at === 'start' ? text + p.text : p.text + text;
  if (at === 'start') p.chars?.unshift(...added);
  else p.chars?.push(...added);
  const x0 = (added[0] as Char).x0;
  p.box = union(p.box, { x: x0, y: p.box.y, w: Math.max(1, (added.at(-1) as Char).x1 - x0), h: p.box.h });
  p.confidence = Math.min(p.confidence, own.confidence);
  p.minCharConfidence = Math.min(p.minCharConfidence, own.minCharConfidence);
}

/** A crop's characters on the page, spaces left out. */
const onPage = (chars: Char[] | undefined, b: Box): Char[] => (chars ?? []).filter((c) => c.text.trim() !== '').map((c) => ({ ...c, x0: c.x0 + b.x, x1: c.x1 + b.x }));

/** Line heights left of a ")" where the "(" of a blank opening the problem, and the child's answer, stand (the printed blank is about two wide). */
const OPENED_BLANK_SLOT = 3.5;

/** `ink` (in the pixels of box `b`) as a page box, padded across and up and down, clipped to the page. */
function padded(page: Mat, b: Box, ink: Box, padX: number, padY: number): Box {
  const x = Math.max(0, b.x + ink.x - padX);
  const y = Math.max(0, b.y + ink.y - padY);
  return { x, y, w: Math.min(page.cols - x, ink.w + 2 * padX), h: Math.min(page.rows - y, ink.h + 2 * padY) };
}

/**
 * Shorter than this share of the line's height, a mark at a slot's left edge is the end of what
 * stands before the slot (a remainder's dot, a fill-in bracket's stroke), not something written
 * in it; a digit is taller, also when the slot's edge cuts through it (the recogniser placed the
 * dots into a remainder's digit).
 */
const EDGE_MARK = 0.35;

/**
 * After an "=", blur joins its bars into one block up to 0.4 line heights tall, of which the slot
 * holds a sliver ("16-4=" left blank on a hard synthetic page was read as something unreadable
 * written there): a mark at the slot's left edge this short and at most `EQUALS_END_WIDTH` wide.
 */
const EQUALS_END = 0.5;
const EQUALS_END_WIDTH = 0.2;

/**
 * The part of a box with ink in it, padded; undefined when it is empty paper. A mark at its left
 * edge that ends what stands before the box is not counted (see EDGE_MARK; `afterEquals`: see EQUALS_END).
 */
export function inkBox(page: Mat, b: Box, lineH: number, afterEquals = false): Box | undefined {
  const edgeEnd = (m: InkMark): boolean => m.x === 0 && (m.h < EDGE_MARK * lineH || (afterEquals && m.h < EQUALS_END * lineH && m.w <= EQUALS_END_WIDTH * lineH));
  const ink = markBounds(inkIn(page, b).marks.filter((m) => !edgeEnd(m)));
  if (!ink) return undefined;
  const pad = Math.round(0.25 * b.h);
  return padded(page, b, ink, pad, pad);
}

/**
 * A lost remainder's digit in its slot, cut to its own ink: the rightmost mark at least 0.4 line
 * heights tall, padded. The recogniser read nothing in a crop of the line's band holding the dots
 * and the digit, or a digit written higher than the quotient with its top cut off (on 10 hard
 * synthetic pages, 2 of 7 lost remainders read; cut to the digit, 6 of 7). Blur can join the dots
 * to the digit's foot: of such a mark only the columns where the ink stands tall are the digit.
 * `dotsSeen`: the ink shows what stands between quotient and digit — two specks or more, a run of
 * low ink joined to the digit, or at least REMAINDER_GAP line heights of paper. `narrow`: the
 * digit's ink is narrow enough for a 1 (see NARROW_ONE).
 */
export function remainderDigit(page: Mat, slot: Box, lineH: number): { box: Box; dotsSeen: boolean; narrow: boolean } | undefined {
  const { mask: ink, marks } = inkIn(page, slot);
  const last = marks.filter((m) => m.h >= 0.4 * lineH).sort((a, b) => b.x + b.w - (a.x + a.w))[0];
  if (!last) return undefined;
  const digit = markBounds(marks.filter((m) => m.x < last.x + last.w && m.x + m.w > last.x && m.h >= 0.15 * lineH)) as Box;
  let joined = false;
  if (digit.w > 0.8 * lineH) {
    const rows = ink.getRegion(new cv.Rect(digit.x, digit.y, digit.w, digit.h)).getDataAsArray() as number[][];
    const tall = (x: number): boolean => rows.reduce((n, r) => n + (r[x] ? 1 : 0), 0) >= 0.25 * lineH;
    let right = digit.w - 1;
    while (right > 0 && !tall(right)) right--;
    let left = right;
    for (let x = right - 1, gap = 0; x >= 0 && gap <= 0.1 * lineH; x--) {
      if (tall(x)) [left, gap] = [x, 0];
      else gap++;
    }
    joined = left > 0.3 * lineH;
    digit.x += left;
    digit.w = right - left + 1;
  }
  const specks = marks.filter((m) => m.h < 0.25 * lineH && m.w < 0.3 * lineH && m.x + m.w <= digit.x).length;
  const box = padded(page, slot, digit, Math.round(0.3 * lineH), Math.round(0.15 * lineH));
  return { box, dotsSeen: specks >= 2 || joined || digit.x >= REMAINDER_GAP * lineH, narrow: digit.w <= NARROW_ONE * digit.h };
}

/**
 * Ink at most this share of its height wide is narrow enough for a 1 alone. Handwritten remainder
 * digits on the synthetic pages (easy and hard, seeds 12680–12719): a 1 is 0.38–0.54 of its height
 * wide, every other digit 0.56–0.76.
 */
const NARROW_ONE = 0.48;

/**
 * A remainder's 1 the recogniser hardly believed in (read at 0.21 and 0.33, alone and cut to its
 * ink, on hard synthetic pages 12684 and 12717) whose ink is narrow enough for a 1 alone (see
 * NARROW_ONE): a guess, which can confirm a right answer and never condemn one.
 */
function addGuessedOne(p: PageItem, one: Char): void {
  addChars(p, [{ ...one, confidence: INK_GUESSED }], 'end', { confidence: p.confidence, minCharConfidence: INK_GUESSED });
}

/**
 * Whether a comparison read with bare numbers lost a printed sign: its numbers are two or more
 * digits apart in length ("24+35○60" read as "2435○60"), or a side is wider in ink than its
 * digits (see wideSides).
 */
export function comparisonMisread(erased: Mat, piece: PageItem, g: GradeResult, circles: Circle[]): boolean {
  const [left, right] = g.question.split('○');
  if (left === undefined || right === undefined) return false;
  const bare = (t: string): boolean => /^\d+$/.test(t);
  if (bare(left) && bare(right) && Math.abs(left.length - right.length) >= 2) return true;
  return wideSides(erased, piece, g, circles).length > 0;
}

/**
 * The sides of a comparison (0 left, 1 right) read as bare numbers whose ink is wider than their
 * digits: a printed digit is at most 0.76 of its height wide (measured on the synthetic pages,
 * spacing included), while "9×6" read as "96" is 0.93 or more per digit. Measured only with the
 * comparison's circle found.
 */
function wideSides(erased: Mat, piece: PageItem, g: GradeResult, circles: Circle[]): number[] {
  const [left, right] = g.question.split('○');
  const b = piece.box;
  const c = circles.find((c) => c.x > b.x && c.x < b.x + b.w && c.y > b.y && c.y < b.y + b.h);
  if (left === undefined || right === undefined || !c) return [];
  const sides = [
    { text: left, box: { ...b, w: c.x - c.r - b.x } },
    { text: right, box: { ...b, x: c.x + c.r, w: b.x + b.w - c.x - c.r } },
  ];
  return sides.flatMap(({ text, box }, k) => {
    if (!/^\d+$/.test(text)) return [];
    const ink = inkExtent(erased, box);
    return ink !== undefined && ink.w > MAX_DIGIT_WIDTH * text.length * ink.h ? [k] : [];
  });
}

/**
 * A comparison whose two-digit side lost the printed sign between its digits (see wideSides:
 * "7×2○15" read as "72○15") is right when the child's sign is right whichever operator stood
 * there (7+2, 7-2, 7×2 and 7÷2 are all less than 15); three right answers on 40 unseen hard
 * pages 12720–12759 were left uncertain. Undefined otherwise: the lost sign never condemns.
 */
export function rightWhateverTheSign(erased: Mat, piece: PageItem, g: GradeResult, circles: Circle[], opts: GradeOptions = {}): GradeResult | undefined {
  const wide = wideSides(erased, piece, g, circles);
  const sides = g.question.split('○');
  if (wide.length === 0 || sides.length !== 2 || wide.some((k) => (sides[k] as string).length !== 2)) return undefined;
  const readings = (k: number): string[] => (wide.includes(k) ? OPERATORS.map((op) => `${(sides[k] as string)[0]}${op}${(sides[k] as string)[1]}`) : [sides[k] as string]);
  const sign = g.student_answer === '=' ? '○=' : g.student_answer;
  const sure = { confidence: g.confidence, minCharConfidence: 1 };
  // A subtraction that goes below zero is no problem printed for grades 1–3: not a reading.
  const graded = readings(0).flatMap((l) => readings(1).map((r) => gradeProblem({ text: `${l}${sign}${r}`, ...sure }, opts))).filter((r) => r.reason !== 'negative_result');
  return graded.length > 0 && graded.every((r) => r.verdict === 'correct') ? { ...g, verdict: 'correct', correct_answer: g.student_answer, reason: 'right_whatever_the_lost_sign' } : undefined;
}

/** See comparisonMisread: "7×2" read as "72" measured 0.85 per digit (hard synthetic page 12722). */
const MAX_DIGIT_WIDTH = 0.8;

/**
 * Line heights of paper a lost sign leaves between two digits (0.16–0.47 on hard synthetic
 * pages, see ink-reading's LOST_SIGN_GAP) that a printed number's digits do not: the recogniser
 * leaves up to 0.17 beside a narrow 1 ("46+15=51", "19-12=17" on easy and medium pages
 * 12600–12639).
 */
const SIGN_GAP = 0.25;

/**
 * The characters (by index) of the digits between a fill-in blank's brackets when they are the
 * child's, in the pen's blue: no printed sign stands between them ("( 4 8 )+8=40", the 4 and 8
 * written a quarter line height apart, was left uncertain on all three levels of page 12695 as a
 * possible 4×8). Print in brackets ("50-(5 24)=20") and a pencil page's answers give none.
 */
export function writtenInBlank(page: Mat, piece: PageItem): Set<number> {
  const chars = piece.chars ?? [];
  const open = chars.findIndex((c) => OPENING.test(c.text));
  const close = chars.findIndex((c, i) => i > open && CLOSING.test(c.text));
  const inside = chars.slice(open + 1, close);
  if (open < 0 || close < open + 3 || !inside.every(isDigit)) return new Set();
  return isPenMark(page, piece.box, (inside[0] as Char).x0, (inside.at(-1) as Char).x1) ? new Set(inside.map((_, k) => open + 1 + k)) : new Set();
}

/**
 * Whether a sign the recogniser dropped between two digits of the question, where it left a gap
 * (`SIGN_GAP`), makes the answer right as any operator: "2+3×8=26" read as "23×8=26", with 0.30
 * line heights between the 2 and the 3, was marked wrong on unseen hard page 12637. (The grader
 * alone reads only a lost × so, see rightIfLost: without the gap, any operator fits a wrong
 * answer too often.) Not between two of `childs`, the child's digits in a blank (see writtenInBlank).
 */
export function rightWithSignInGap(piece: Piece, opts: GradeOptions = {}, childs = new Set<number>()): boolean {
  const chars = piece.chars ?? [];
  const equals = chars.findIndex((c) => /^[=＝]$/.test(c.text));
  for (let k = 1; k < equals; k++) {
    const [prev, next] = [chars[k - 1] as Char, chars[k] as Char];
    if (!isDigit(prev) || !isDigit(next) || next.x0 - prev.x1 < SIGN_GAP * piece.box.h || (childs.has(k - 1) && childs.has(k))) continue;
    const at = rawIndex(piece, k, next.text);
    if (at !== undefined && rightWithOperatorAt(piece, at, 0, opts)) return true;
  }
  return false;
}

/** Whether some operator in place of `length` characters of the piece's text at `at` makes the answer right, read as sure. */
function rightWithOperatorAt(piece: Piece, at: number, length: number, opts: GradeOptions): boolean {
  const sure = { confidence: 1, minCharConfidence: 1 };
  return OPERATORS.some((op) => gradeProblem({ text: piece.text.slice(0, at) + op + piece.text.slice(at + length), ...sure }, opts).verdict === 'correct');
}

/**
 * Whether a digit of the question, between two digits, is a sign's ink — shorter than
 * SIGN_LIKE_HEIGHT of the digits beside it (a digit's middle strip spans its whole height), or a
 * ÷'s dots above and below a bar — and some operator in its place makes the answer right:
 * "12÷2+22=28" read as "1242+22=28" (the ÷ blurred into a blob at mid-height) was marked wrong on
 * unseen hard synthetic page 12752.
 */
export function rightWithSignReadAsDigit(page: Mat, piece: PageItem, opts: GradeOptions = {}): boolean {
  const chars = piece.chars ?? [];
  const equals = chars.findIndex((c) => /^[=＝]$/.test(c.text));
  const middleHeight = (c: Char): number => {
    const w = c.x1 - c.x0;
    return inkExtent(page, { x: c.x0 + 0.25 * w, y: piece.box.y, w: 0.5 * w, h: piece.box.h })?.h ?? 0;
  };
  for (let k = 1; k + 1 < equals; k++) {
    const [prev, c, next] = [chars[k - 1] as Char, chars[k] as Char, chars[k + 1] as Char];
    if (!isDigit(c) || !isDigit(prev) || !isDigit(next)) continue;
    const beside = Math.min(middleHeight(prev), middleHeight(next));
    if (!(middleHeight(c) < SIGN_LIKE_HEIGHT * beside) && !hasDotsAboveAndBelow(page, piece.box, c.x0, c.x1)) continue;
    const at = rawIndex(piece, k, c.text);
    if (at !== undefined && rightWithOperatorAt(piece, at, c.text.length, opts)) return true;
  }
  return false;
}

const SIGN_LIKE_HEIGHT = 0.75;

/**
 * Whether a fill-in bracket holds more digit-sized marks than the answer read in it has digits:
 * "( 17 )+26=43" read as "(1)+26=43" was marked wrong on unseen hard synthetic page 12751. Marks
 * touching either end of the span between the brackets may be the brackets' own strokes, and
 * are not counted.
 */
export function digitLostInBracket(page: Mat, piece: PageItem, answer: string): boolean {
  const chars = piece.chars ?? [];
  const open = chars.findIndex((c) => OPENING.test(c.text));
  const close = chars.findIndex((c, i) => i > open && CLOSING.test(c.text));
  if (open < 0 || close < 0 || !/^\d+$/.test(answer)) return false;
  const x = Math.ceil((chars[open] as Char).x1);
  const right = Math.floor((chars[close] as Char).x0);
  if (right - x < 2) return false;
  const band = lineBand(page, { x, y: 0, w: right - x, h: 0 }, piece.box);
  const h = piece.box.h;
  const digits = inkIn(page, band).marks.filter((m) => m.h >= 0.4 * h && m.x > 0 && m.x + m.w < band.w);
  return digits.length > answer.length;
}

/**
 * Whether the ink after a problem's "=" holds more digit-sized marks than the answer read has
 * digits: the recogniser dropped one ("72-25=47" read as "72-25=7", "31+12=43" as "=3": two of
 * the three right answers marked wrong on unseen hard synthetic pages 11920–11959).
 */
export function digitLost(page: Mat, piece: PageItem, answer: string): boolean {
  if (piece.equalsX === undefined || !/^\d+$/.test(answer)) return false;
  const h = piece.box.h;
  const x = Math.min(page.cols - 1, Math.round(piece.equalsX + 1));
  const right = Math.min(page.cols, Math.round(piece.box.x + piece.box.w + 0.5 * h));
  if (right - x < 2) return false;
  const band = lineBand(page, { x, y: 0, w: right - x, h: 0 }, piece.box);
  // Digit-sized marks only: not the ends of the equals sign's bars at the left edge, nor specks.
  const digits = inkIn(page, band).marks.filter((m) => m.h >= 0.4 * h);
  return digits.length > answer.length;
}

/** The paper between the first and the last bracket-tall mark of a crop, on the page; undefined with fewer than two. */
function bracketsApart(page: Mat, b: Box, lineH: number): { x0: number; x1: number } | undefined {
  const marks = inkIn(page, b).marks.filter((m) => m.h >= 0.4 * lineH).sort((m, n) => m.x - n.x);
  const [first, last] = [marks[0], marks.at(-1)];
  return first && last && first !== last ? { x0: b.x + first.x + first.w, x1: b.x + last.x } : undefined;
}

/** Whether the page between x0 and x1 of a line (its middle rows, the bracket strokes left out) is bare paper. */
function bareBetween(page: Mat, line: Box, gap: { x0: number; x1: number }): boolean {
  const inset = Math.max(2, Math.round(0.15 * (gap.x1 - gap.x0)));
  const x = Math.round(gap.x0 + inset);
  const w = Math.round(gap.x1 - inset) - x;
  if (w < 4) return false;
  return inkBox(page, { x, y: Math.round(line.y + 0.15 * line.h), w: Math.min(w, page.cols - x), h: Math.round(0.7 * line.h) }, line.h) === undefined;
}

/** The columns of `b` in the rows of `line`, a tenth of its height more above and below. */
function lineBand(page: Mat, b: Box, line: Box): Box {
  const y = Math.max(0, Math.round(line.y - 0.1 * line.h));
  return { x: b.x, y, w: b.w, h: Math.min(page.rows - y, Math.round(1.2 * line.h)) };
}

/** Whether a slot reaches the page's right edge: the answer may be beyond it, so it is never bare. */
export function cutByEdge(page: Mat, slot: Box): boolean {
  return slot.x + slot.w >= page.cols - 1;
}

/**
 * "a÷b=q" (or "a÷b=q.") where a÷b leaves a remainder: its remainder may be lost. So may a
 * printed ÷ read as + ("17+6=2" for 17÷6=2……5) when q is the quotient and not the sum: a child
 * who added would not write that.
 */
export function unevenDivision(text: string): boolean {
  const m = /(?:^|[^\d)])(\d+)([÷+])(\d+)[=＝](\d+)[.·。]?\s*$/.exec(text);
  if (!m) return false;
  const [a, b, q] = [Number(m[1]), Number(m[3]), Number(m[4])];
  if (b === 0 || a % b === 0) return false;
  return m[2] === '÷' || q === Math.floor(a / b);
}

/** "a÷b=" where a÷b leaves a remainder. */
function leavesRemainder(text: string): boolean {
  const m = /^\s*(\d+)÷(\d+)[=＝]\s*$/.exec(text);
  return m !== null && Number(m[2]) !== 0 && Number(m[1]) % Number(m[2]) !== 0;
}

/**
 * The remainder's digit in an answer read again with its problem (`answer`: what stands after
 * its "="), for a division read up to its quotient and maybe its dots ("16÷5=3", "16÷5=3……"):
 * the last character, when the answer is that same quotient, at least one dot, and one digit.
 */
export function remainderAfter(text: string, answer: readonly Char[]): Char | undefined {
  const quotient = /÷\d+[=＝]\s*(\d+)\s*(…|[.·。])*\s*$/.exec(text)?.[1];
  const read = answer.map((c) => c.text).join('');
  const m = /^(\d+)[….·。]+(\d)$/.exec(read);
  return quotient !== undefined && m?.[1] === quotient ? answer.at(-1) : undefined;
}

/** Line heights of paper that a remainder's six dots leave at most between its quotient and its digit (0.9–1.6 measured). */
const DOTS_GAP_MAX = 2;

/**
 * Where an answer read in its slot lost a remainder's dots: between two of its digits whose ink
 * is REMAINDER_GAP to DOTS_GAP_MAX line heights apart (a number's digits stand close, and a mark
 * further off belongs to something else; the dots' specks are too small to count as ink here),
 * with one digit after the gap: a remainder is less than its divisor, a single digit in grades
 * 1–3 (more digits there may be the next problem's, standing about as far off). The index in
 * `chars` of the digit after the gap.
 */
export function dotsLostBetween(page: Mat, slot: Box, chars: readonly Char[], lineH: number): number | undefined {
  if (chars.length < 2 || !chars.every((c) => /^\d$/.test(c.text))) return undefined;
  const marks = inkIn(page, slot).marks.filter((m) => m.h >= 0.4 * lineH).sort((a, b) => a.x - b.x);
  let reach = marks[0] ? marks[0].x + marks[0].w : 0;
  for (const m of marks.slice(1)) {
    if (m.x - reach > DOTS_GAP_MAX * lineH) return undefined;
    if (m.x - reach >= REMAINDER_GAP * lineH) {
      const gap = slot.x + (reach + m.x) / 2;
      const k = chars.findIndex((c) => (c.x0 + c.x1) / 2 > gap);
      return k > 0 && k === chars.length - 1 ? k : undefined;
    }
    reach = Math.max(reach, m.x + m.w);
  }
  return undefined;
}

/** Line heights beyond the piece's box where a lost remainder's dots and digit may be (six dots take about 1.5). */
const REMAINDER_SLOT = 2.5;

/** Line heights beyond the piece's box where the digit after a remainder's dots may be (see readDigitsAfterDots). */
const DIGIT_AFTER_DOTS = 1.5;

/**
 * Whether the paper right of a problem's answer (digits after its "=") is bare up to where a
 * remainder would end (REMAINDER_SLOT line heights) or the next problem begins: then the child
 * wrote no remainder, and none was lost by the recogniser. Not where the page's edge cuts it.
 */
export function bareAfterAnswer(page: Mat, p: PageItem, pieces: readonly PageItem[]): boolean {
  const last = p.chars?.at(-1);
  if (!last || !/[=＝]\s*\d+$/.test(p.text)) return false;
  const strip = endedByNext(answerSlot(page, p.box, last.x1, (p.box.x + p.box.w - last.x1) / p.box.h + REMAINDER_SLOT), p, pieces);
  return !inkBox(page, strip, p.box.h) && !cutByEdge(page, strip);
}

/**
 * A slot ends where the next problem on its row begins: a blank's slot reached into the next
 * column's comparison "86○68" when the columns stood close, and read its 86 as the answer.
 */
export function endedByNext(slot: Box, p: PageItem, pieces: readonly PageItem[]): Box {
  const next = Math.min(...pieces.filter((q) => q !== p && q.box.x > slot.x && sameRow(q.box, p.box)).map((q) => q.box.x));
  return next < slot.x + slot.w ? { ...slot, w: Math.max(2, next - slot.x) } : slot;
}

/** Where a child writes the answer: right of `from` (the equals sign), `widthInLines` line heights wide. */
function answerSlot(page: Mat, b: Box, from: number | undefined, widthInLines: number): Box {
  const x = Math.min(page.cols - 2, Math.round(from !== undefined ? from + 1 : b.x + b.w));
  const y = Math.max(0, Math.round(b.y - 0.3 * b.h));
  return { x, y, w: Math.max(2, Math.min(page.cols - x, Math.round(widthInLines * b.h))), h: Math.max(2, Math.min(page.rows - y, Math.round(1.6 * b.h))) };
}

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
