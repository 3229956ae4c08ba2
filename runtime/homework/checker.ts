import { randomUUID } from 'node:crypto';
import { cv, type Mat } from '../../models/cv.js';
import { OcrEngine, type OcrLine } from '../../models/ocr/index.js';
import { type Circle, eraseComparisonCircles, findComparisonCircles, preparePage, readCircleSign } from '../../models/page/index.js';
import { gradeProblem, splitProblems } from '../../scenes/homework/arithmetic.js';
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

/** Splits a line holding several problems of a drill row and gives each its own box from the character positions. */
export function piecesOf(line: OcrLine): Piece[] {
  const parts = splitProblems(line.text);
  if (parts.length <= 1 || line.chars.length === 0) return [{ text: line.text, confidence: line.confidence, minCharConfidence: line.minCharConfidence, box: line.box, equalsX: equalsEnd(line.chars) }];
  const chars = line.chars.filter((c) => c.text.trim() !== '');
  const pieces: Piece[] = [];
  let at = 0;
  for (const part of parts) {
    const n = [...part.replace(/\s+/g, '')].length;
    const mine = chars.slice(at, at + n);
    at += n;
    if (mine.length === 0) continue;
    const x0 = Math.min(...mine.map((c) => c.x0));
    const x1 = Math.max(...mine.map((c) => c.x1));
    pieces.push({
      text: part,
      confidence: mine.reduce((s, c) => s + c.confidence, 0) / mine.length,
      minCharConfidence: Math.min(...mine.map((c) => c.confidence)),
      box: { x: Math.max(line.box.x, x0), y: line.box.y, w: Math.max(1, Math.min(line.box.x + line.box.w, x1) - Math.max(line.box.x, x0)), h: line.box.h },
      equalsX: equalsEnd(mine),
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

export interface PageItem {
  text: string;
  equalsX?: number;
  /** For a cloud question: the child's answer lines under it. */
  answer?: string;
  confidence: number;
  minCharConfidence: number;
  box: Box;
  arithmetic: boolean;
}

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
    } else if (role === 'question' && !question) {
      question = { text: line.text.replace(/\s+/g, ''), confidence: line.confidence, minCharConfidence: line.minCharConfidence, box: line.box, arithmetic: false };
      items.push(question);
    } else if (question) {
      // The child's answer (答：…, the characters in the boxes, a second line of the question).
      const text = line.text.replace(/\s+/g, '').replace(/^答[:：]/, '');
      question.answer = (question.answer ?? '') + text;
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
    const lines = withCircleSigns(await this.ocr.read(eraseComparisonCircles(page, circles)), circles.map((c) => ({ ...c, sign: readCircleSign(page, c) })));
    const t2 = performance.now();

    const items: CheckedItem[] = [];
    const boxes = new Map<number, Box>();
    const pieces = pageItems(lines.map((l) => restoreDivisionSigns(page, l)));
    await this.readMissingAnswers(page, pieces);
    for (const piece of pieces) {
      const index = items.length + 1;
      boxes.set(index, piece.box);
      const bbox = sourceBox(piece.box, prepared.toSource);
      const confidence = Math.round(piece.confidence * 1000) / 1000;
      if (!piece.arithmetic) {
        items.push({ index, question: piece.text, student_answer: piece.answer ?? '', correct_answer: null, verdict: 'uncertain', confidence, bbox, kind: 'not_arithmetic', reason: 'not_arithmetic', judged_by: 'lamp' });
        continue;
      }
      const g = gradeProblem({ text: piece.text, confidence: piece.confidence, minCharConfidence: piece.minCharConfidence }, { minConfidence: this.opts.minConfidence });
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

  /**
   * The detector misses short answers written apart from the problem ("18-14=  4"): for a
   * problem that ends at its equals sign, the slot to its right is read on its own, and what is
   * found there becomes the answer. A slot with nothing readable stays blank.
   */
  private async readMissingAnswers(page: Mat, pieces: PageItem[]): Promise<void> {
    const open = pieces.filter((p) => p.arithmetic && /[=＝]\s*$/.test(p.text));
    if (open.length === 0) return;
    // Only slots with ink in them are read again, cut to the ink: a lone digit in a wide strip
    // of paper is what the recogniser misses.
    const inked = open.map((p) => ({ p, slot: inkBox(page, answerSlot(page, p.box, p.equalsX)) })).filter((x): x is { p: PageItem; slot: Box } => x.slot !== undefined);
    if (inked.length === 0) return;
    const read = await this.ocr.recognize(inked.map(({ slot: b }) => page.getRegion(new cv.Rect(b.x, b.y, b.w, b.h))));
    inked.forEach(({ p, slot }, i) => {
      const r = read[i];
      const answer = r?.text.replace(/\s+/g, '') ?? '';
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

/** Below any grading threshold: a circle whose sign could not be read leaves its problem uncertain. */
const UNREAD_SIGN_CONFIDENCE = 0.2;

/**
 * Puts each comparison circle's sign (or ○ when the sign could not be read, which the grader
 * then leaves uncertain) into the OCR line that runs through the circle, at its place.
 */
export function withCircleSigns(lines: OcrLine[], circles: (Circle & { sign: string | undefined })[]): OcrLine[] {
  return lines.map((line) => {
    const mine = circles.filter((c) => c.y >= line.box.y && c.y <= line.box.y + line.box.h && c.x >= line.box.x - c.r && c.x <= line.box.x + line.box.w + c.r);
    if (mine.length === 0) return line;
    const chars = line.chars.filter((c) => c.text.trim() !== '');
    const placed = mine.filter((c) => !chars.some((ch) => /[<>=＝]/.test(ch.text) && Math.abs((ch.x0 + ch.x1) / 2 - c.x) < 1.2 * c.r));
    if (placed.length === 0) return line; // the recogniser read the sign itself
    for (const c of placed) {
      const at = chars.findIndex((ch) => (ch.x0 + ch.x1) / 2 > c.x);
      const sign = { text: c.sign ?? '○', confidence: c.sign ? 0.9 : UNREAD_SIGN_CONFIDENCE, x0: c.x - c.r / 2, x1: c.x + c.r / 2 };
      chars.splice(at < 0 ? chars.length : at, 0, sign);
    }
    const x0 = Math.min(line.box.x, ...mine.map((c) => c.x - c.r));
    const x1 = Math.max(line.box.x + line.box.w, ...mine.map((c) => c.x + c.r));
    // A sign that could not be read must not look like a blank answer: the line becomes unsure.
    const unread = placed.some((c) => c.sign === undefined);
    return { ...line, text: chars.map((c) => c.text).join(''), chars, box: { ...line.box, x: x0, w: x1 - x0 }, minCharConfidence: unread ? Math.min(line.minCharConfidence, UNREAD_SIGN_CONFIDENCE) : line.minCharConfidence };
  });
}

/** The part of a box with ink in it (darker than its paper), padded; undefined when it is empty paper. */
function inkBox(page: Mat, b: Box): Box | undefined {
  const gray = page.getRegion(new cv.Rect(b.x, b.y, b.w, b.h)).bgrToGray();
  const paper = gray.mean().w;
  const ink = gray.threshold(Math.max(0, paper - 45), 255, cv.THRESH_BINARY_INV);
  const { stats } = ink.connectedComponentsWithStats() as unknown as { stats: Mat };
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let i = 1; i < stats.rows; i++) {
    if (stats.at(i, 4) < 8) continue; // specks of noise
    x0 = Math.min(x0, stats.at(i, 0));
    y0 = Math.min(y0, stats.at(i, 1));
    x1 = Math.max(x1, stats.at(i, 0) + stats.at(i, 2));
    y1 = Math.max(y1, stats.at(i, 1) + stats.at(i, 3));
  }
  if (x1 < 0) return undefined;
  const pad = Math.round(0.25 * b.h);
  const x = Math.max(0, b.x + x0 - pad);
  const y = Math.max(0, b.y + y0 - pad);
  return { x, y, w: Math.min(page.cols - x, x1 - x0 + 2 * pad), h: Math.min(page.rows - y, y1 - y0 + 2 * pad) };
}

/** Where a child writes the answer: right of the equals sign, about three characters wide. */
function answerSlot(page: Mat, b: Box, equalsX: number | undefined): Box {
  const x = Math.min(page.cols - 2, Math.round(equalsX !== undefined ? equalsX + 1 : b.x + b.w));
  const y = Math.max(0, Math.round(b.y - 0.3 * b.h));
  return { x, y, w: Math.max(2, Math.min(page.cols - x, Math.round(3.5 * b.h))), h: Math.max(2, Math.min(page.rows - y, Math.round(1.6 * b.h))) };
}

/**
 * A ÷ whose dots the recogniser did not see reads as + or -. Where it read one, the ink there is
 * looked at: a bar with a separate dot above and below it is a division sign.
 */
export function restoreDivisionSigns(page: Mat, line: OcrLine): OcrLine {
  if (!line.chars.some((c) => c.text === '+' || c.text === '-')) return line;
  let changed = false;
  const chars = line.chars.map((c) => {
    if ((c.text !== '+' && c.text !== '-') || !hasDotsAboveAndBelow(page, line.box, c.x0, c.x1)) return c;
    changed = true;
    return { ...c, text: '÷' };
  });
  if (!changed) return line;
  // The line's text is its characters (spaces between them are not characters of the model).
  let text = '';
  let k = 0;
  for (const ch of line.text) {
    if (chars[k] && ch === line.chars[k]?.text) text += (chars[k++] as { text: string }).text;
    else text += ch;
  }
  return { ...line, text, chars };
}

function hasDotsAboveAndBelow(page: Mat, box: Box, x0: number, x1: number): boolean {
  const h = box.h;
  const cx = (x0 + x1) / 2;
  const w = Math.max(6, Math.round(0.6 * h));
  const x = Math.max(0, Math.round(cx - w / 2));
  const y = Math.max(0, Math.round(box.y));
  const cell = new cv.Rect(x, y, Math.min(w, page.cols - x), Math.min(Math.round(h), page.rows - y));
  if (cell.width < 4 || cell.height < 6) return false;
  const gray = page.getRegion(cell).bgrToGray();
  // Blur fills the narrow gaps between a ÷'s dots and its bar at the usual (Otsu) threshold, so
  // a few darker cut-offs are tried too: at some level the three parts separate.
  const darkest = gray.minMaxLoc().minVal;
  return [0.3, 0.4, 0.5].some((f) => dotsAboveAndBelow(gray.threshold(darkest + f * (255 - darkest), 255, cv.THRESH_BINARY_INV), h));
}

function dotsAboveAndBelow(ink: Mat, h: number): boolean {
  const { stats } = ink.connectedComponentsWithStats() as unknown as { stats: Mat };
  const parts: { x: number; y: number; w: number; h: number; area: number }[] = [];
  for (let i = 1; i < stats.rows; i++) {
    parts.push({ x: stats.at(i, 0), y: stats.at(i, 1), w: stats.at(i, 2), h: stats.at(i, 3), area: stats.at(i, 4) });
  }
  const bar = parts.filter((p) => p.w > p.h * 1.5 && p.w >= 0.3 * ink.cols).sort((a, b) => b.area - a.area)[0];
  if (!bar) return false;
  const dot = (p: { x: number; w: number; h: number; area: number }): boolean => p !== bar && p.area >= 2 && p.h <= 0.35 * h && p.x + p.w > bar.x && p.x < bar.x + bar.w;
  const above = parts.some((p) => dot(p) && p.y + p.h <= bar.y);
  const below = parts.some((p) => dot(p) && p.y >= bar.y + bar.h);
  return above && below;
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
