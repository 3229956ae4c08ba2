import { randomUUID } from 'node:crypto';
import { cv, type Mat } from '../../models/cv.js';
import { OcrEngine, type OcrLine } from '../../models/ocr/index.js';
import { preparePage } from '../../models/page/index.js';
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
    const continues = /^\s*[)）=＝]/.test(line.text);
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
  if (parts.length <= 1 || line.chars.length === 0) return [{ text: line.text, confidence: line.confidence, minCharConfidence: line.minCharConfidence, box: line.box }];
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

export interface PageItem {
  text: string;
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
  for (const line of joinFragments(lines)) {
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
    const lines = await this.ocr.read(page);
    const t2 = performance.now();

    const items: CheckedItem[] = [];
    const boxes = new Map<number, Box>();
    for (const piece of pageItems(lines)) {
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

  async release(): Promise<void> {
    await this.ocr.release();
  }
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
