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

/**
 * Header and name lines ("口算练习 第3课  姓名：____") are not problems. A line counts as a
 * problem when it has arithmetic in it, or is an exercise sentence (numbered, with a blank or
 * a question mark); anything else on the page is left alone rather than sent to the cloud.
 */
export function looksLikeProblem(text: string): boolean {
  const t = text.replace(/\s+/g, '');
  if (/\d\s*[+\-×÷xX*:÷]\s*[\d(（]|[=＝○]|\d\s*[<>]\s*\d/.test(t)) return true;
  return /^[(（]?\d{1,2}[).、．）]/.test(t) && /[？?（(]\s*[)）]|_{2,}|[？?]$/.test(t);
}

/**
 * The lamp's look at a homework page: page pipeline → OCR → arithmetic grading. Models load
 * once; `check` runs per photo. Everything the lamp cannot judge itself (not arithmetic, or not
 * sure enough) comes out `uncertain` and is for the cloud.
 */
export class HomeworkChecker {
  private constructor(private readonly ocr: OcrEngine, private readonly opts: CheckerOptions) {}

  static async load(opts: CheckerOptions): Promise<HomeworkChecker> {
    return new HomeworkChecker(await OcrEngine.load({ modelsDir: opts.modelsDir, angleClassifier: true, log: opts.log }), opts);
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
    const lines = joinFragments(await this.ocr.read(page));
    const t2 = performance.now();

    const items: CheckedItem[] = [];
    const boxes = new Map<number, Box>();
    for (const line of lines) {
      if (!looksLikeProblem(line.text)) continue;
      for (const piece of piecesOf(line)) {
        if (!looksLikeProblem(piece.text)) continue;
        const g = gradeProblem({ text: piece.text, confidence: piece.confidence, minCharConfidence: piece.minCharConfidence }, { minConfidence: this.opts.minConfidence });
        const index = items.length + 1;
        boxes.set(index, piece.box);
        items.push({
          index,
          question: g.question,
          student_answer: g.student_answer,
          correct_answer: g.correct_answer,
          verdict: g.verdict,
          confidence: Math.round(g.confidence * 1000) / 1000,
          bbox: sourceBox(piece.box, prepared.toSource),
          kind: g.kind,
          reason: g.reason,
          judged_by: 'lamp',
        });
      }
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
