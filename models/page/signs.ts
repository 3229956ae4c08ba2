import { cv, type Mat } from '../cv.js';
import { percentile } from './enhance.js';
import { type InkMark, inkMarks, markBounds, median, PEN_BLUE } from './image.js';

/**
 * The shapes of printed operators, read from the ink where the recogniser put one. Blur on a
 * photographed page merges a ÷'s dots into its bar, and the recogniser then reads + or -; the
 * ink still tells them apart.
 */

interface Box { x: number; y: number; w: number; h: number }

/** The cell of one operator on its line: centred on the character, 0.6 line heights wide, the line's height. */
function signCell(page: Mat, line: Box, x0: number, x1: number): Mat | undefined {
  const h = line.h;
  const w = Math.max(6, Math.round(0.6 * h));
  const x = Math.max(0, Math.round((x0 + x1) / 2 - w / 2));
  const y = Math.max(0, Math.round(line.y));
  const cell = new cv.Rect(x, y, Math.min(w, page.cols - x), Math.min(Math.round(h), page.rows - y));
  if (cell.width < 4 || cell.height < 6) return undefined;
  return page.getRegion(cell).bgrToGray();
}

/** A bar with a separate dot above and below it: a division sign (checked at a few ink levels). */
export function hasDotsAboveAndBelow(page: Mat, line: Box, x0: number, x1: number): boolean {
  const gray = signCell(page, line, x0, x1);
  if (!gray) return false;
  // Blur fills the narrow gaps between a ÷'s dots and its bar at the usual (Otsu) threshold, so
  // a few darker cut-offs are tried too: at some level the three parts separate.
  const darkest = gray.minMaxLoc().minVal;
  return [0.3, 0.4, 0.5].some((f) => dotsAboveAndBelow(gray.threshold(darkest + f * (255 - darkest), 255, cv.THRESH_BINARY_INV), line.h));
}

function dotsAboveAndBelow(ink: Mat, h: number): boolean {
  const parts = inkMarks(ink);
  const bar = parts.filter((p) => p.w > p.h * 1.5 && p.w >= 0.3 * ink.cols).sort((a, b) => b.area - a.area)[0];
  if (!bar) return false;
  const dot = (p: InkMark): boolean => p !== bar && p.area >= 2 && p.h <= 0.35 * h && p.x + p.w > bar.x && p.x < bar.x + bar.w;
  const above = parts.some((p) => dot(p) && p.y + p.h <= bar.y);
  const below = parts.some((p) => dot(p) && p.y >= bar.y + bar.h);
  return above && below;
}

/**
 * Whether a sign read as + has no crossing: where a +'s two strokes cross, a blurred photo is
 * as dark as the darkest ink of the line (two strokes on top of each other), while a single
 * bar — a ÷ whose dots blurred into it — stays lighter. Measured on the synthetic pages as the
 * darkest point in the middle of the sign, on a scale from the line's darkest ink (0) to the
 * paper (1): a real + at most 0.12, a ÷ read as + at least 0.18.
 */
export function lacksCrossing(page: Mat, line: Box, x0: number, x1: number): boolean {
  const gray = signCell(page, line, x0, x1);
  if (!gray) return false;
  const lineGray = page.getRegion(new cv.Rect(line.x, line.y, Math.min(line.w, page.cols - line.x), Math.min(line.h, page.rows - line.y))).bgrToGray();
  const darkest = lineGray.minMaxLoc().minVal;
  const rows = stripProfile(gray);
  const paper = Math.max(...rows);
  if (paper - darkest < MIN_CONTRAST) return false;
  const middle = Math.min(...rows.slice(Math.floor(rows.length * 0.25), Math.ceil(rows.length * 0.75)));
  return (middle - darkest) / (paper - darkest) >= LACKS_CROSSING_AT;
}

const LACKS_CROSSING_AT = 0.16;
/** Paper and ink closer than this (grey levels) tell nothing. */
const MIN_CONTRAST = 60;

/**
 * Whether a sign read as - is a bare bar: in the middle of the sign only the bar's rows hold
 * ink and everything above and below is paper. A ÷ keeps some grey where its dots were even
 * when blur has taken their shape.
 */
export function isBareBar(page: Mat, line: Box, x0: number, x1: number): boolean {
  const gray = signCell(page, line, x0, x1);
  if (!gray) return false;
  const rows = stripProfile(gray);
  const paper = Math.max(...rows);
  const lo = Math.floor(rows.length * 0.25);
  const middle = rows.slice(lo, Math.ceil(rows.length * 0.75));
  const bar = lo + middle.indexOf(Math.min(...middle));
  const barInk = rows[bar] as number;
  if (paper - barInk < MIN_CONTRAST) return false;
  const inked = (r: number): boolean => (rows[r] as number) < paper - BARE_PAPER * (paper - barInk);
  let top = bar;
  let bottom = bar;
  while (top > 0 && inked(top - 1)) top--;
  while (bottom < rows.length - 1 && inked(bottom + 1)) bottom++;
  if (bottom - top + 1 > 0.25 * gray.rows) return false;
  return rows.every((_, r) => (r >= top && r <= bottom) || !inked(r));
}

/** Above and below a bare bar nothing is darker than this share of the bar's contrast. */
const BARE_PAPER = 0.2;

/**
 * Whether a sign read as × (or x) is a cross of diagonals, not a +: at least three corners of the
 * box around its ink hold ink. On the synthetic easy and medium pages every × had three or four
 * and 2 of 398 + had any; on hard pages blur fills a +'s corners too, so this only adds to what
 * the recogniser read.
 */
export function isDiagonalCross(page: Mat, line: Box, x0: number, x1: number): boolean {
  const gray = signCell(page, line, x0, x1);
  if (!gray) return false;
  const { minVal, maxVal } = gray.minMaxLoc();
  if (maxVal - minVal < MIN_CONTRAST) return false;
  const ink = gray.threshold(minVal + 0.5 * (maxVal - minVal), 255, cv.THRESH_BINARY_INV);
  // The sign: the biggest mark whose box holds the cell's centre.
  const [cx, cy] = [gray.cols / 2, gray.rows / 2];
  const sign = inkMarks(ink)
    .filter((m) => m.x <= cx && cx <= m.x + m.w && m.y <= cy && cy <= m.y + m.h)
    .sort((a, b) => b.area - a.area)[0];
  if (!sign || sign.w < 4 || sign.h < 4) return false;
  const { x, y, w, h } = sign;
  const r = Math.max(1, Math.round(0.12 * Math.min(w, h)));
  /** Ink in the small square around (fx, fy) of the sign's box, as fractions of its size. */
  const inked = (fx: number, fy: number): boolean => {
    const px = Math.round(x + fx * (w - 1));
    const py = Math.round(y + fy * (h - 1));
    for (let yy = Math.max(0, py - r); yy <= Math.min(ink.rows - 1, py + r); yy++) {
      for (let xx = Math.max(0, px - r); xx <= Math.min(ink.cols - 1, px + r); xx++) if (ink.at(yy, xx) > 0) return true;
    }
    return false;
  };
  return [inked(0.1, 0.1), inked(0.9, 0.1), inked(0.1, 0.9), inked(0.9, 0.9)].filter(Boolean).length >= 3;
}

/** Per row of the sign cell, the darkest pixel of its middle 40 % of columns. */
function stripProfile(gray: Mat): number[] {
  const c0 = Math.floor(gray.cols * 0.3);
  const c1 = Math.max(c0 + 1, Math.ceil(gray.cols * 0.7));
  const rows: number[] = [];
  for (let r = 0; r < gray.rows; r++) {
    let m = 255;
    for (let c = c0; c < c1; c++) m = Math.min(m, gray.at(r, c));
    rows.push(m);
  }
  return rows;
}

/**
 * The box around the ink in a box, in its own pixels (Otsu on its grey levels; specks under 1 % of
 * the box height squared are noise): how wide and how tall what is printed there is.
 */
export function inkExtent(page: Mat, box: Box): Box | undefined {
  const gray = grayIn(page, box, 2)?.gray;
  if (!gray) return undefined;
  const h = gray.rows;
  const { minVal, maxVal } = gray.minMaxLoc();
  if (maxVal - minVal < MIN_CONTRAST) return undefined;
  const minArea = Math.max(4, 0.01 * h * h);
  return markBounds(inkMarks(gray.threshold(0, 255, cv.THRESH_BINARY_INV | cv.THRESH_OTSU)).filter((m) => m.area >= minArea));
}

/**
 * Where a line's ink has a mark shaped like an equals sign, as x ranges in page pixels. On a
 * blurred page the recogniser reads "=" as "-", drops it ("9+10=19" → "9+1019") or reads 元; the
 * ink still shows it, as two bars each at least 0.34 H wide one above the other, or — on hard
 * pages, where blur joins the bars — one block 0.25–0.55 H tall and 0.3–0.9 H wide in the middle
 * of the line (H the digits' height; the ink cut halfway between the line's darkest ink and its
 * paper). Measured on the synthetic medium and hard pages: a printed "-" is at most 0.17 H tall
 * and 0.33 H wide, a ÷'s dots are specks. A blurred + or ÷ is a block of the same size, so this
 * says where an "=" can be, not that one is there: the caller only looks where the recogniser
 * read no operator.
 */
export function equalsSigns(page: Mat, line: Box): { x0: number; x1: number }[] {
  const g = lineGray(page, line);
  if (!g) return [];
  const { gray, x, darkest, paper } = g;
  // The darkest ink may be the answer's pen, and the printed signs much lighter: two cut-offs.
  const found = [0.5, 0.6].flatMap((f) => equalsMarks(gray, darkest + f * (paper - darkest)).map((m) => ({ x0: x + m.x0, x1: x + m.x1 })));
  const kept: { x0: number; x1: number }[] = [];
  for (const m of found.sort((a, b) => a.x0 - b.x0)) if (!kept.some((k) => m.x0 < k.x1 && k.x0 < m.x1)) kept.push(m);
  return kept;
}

/** A line's marks at a cut-off, with the digits' height H and the row of their middle; undefined without digits. */
function lineMarks(gray: Mat, cut: number): { marks: InkMark[]; digits: InkMark[]; H: number; middle: number } | undefined {
  const marks = inkMarks(gray.threshold(cut, 255, cv.THRESH_BINARY_INV)).filter((m) => m.area >= 4);
  // Digits: the tall marks (a handwritten answer can be half as tall again as the printed ones, and
  // makes the line box taller).
  const digits = marks.filter((m) => m.h >= 0.35 * gray.rows);
  if (digits.length === 0) return undefined;
  const H = median(digits.map((m) => m.h));
  return { marks, digits, H, middle: median(digits.map((m) => m.y)) + H / 2 };
}

/**
 * The middle row of the digits either side of a sign centred at `at` (in the line's columns):
 * the printed operands the sign stands between. The line's median is pulled down by a handwritten
 * answer broken into pieces at the cut-off ("2×5=10" on an easy page: the 1 and 0 in two low
 * pieces put the median 6 pixels under the ×, which the classifier then called a sure ÷). The
 * line's middle when a side has no digit.
 */
function middleBeside(found: { digits: InkMark[]; middle: number }, at: number): number {
  const left = found.digits.filter((m) => m.x + m.w / 2 < at).sort((a, b) => b.x + b.w - (a.x + a.w))[0];
  const right = found.digits.filter((m) => m.x + m.w / 2 > at).sort((a, b) => a.x - b.x)[0];
  return left && right ? (left.y + left.h / 2 + right.y + right.h / 2) / 2 : found.middle;
}

/** The grey image of a box clipped to the page, with its left edge; undefined when a side is under `minSide`. */
function grayIn(page: Mat, box: Box, minSide: number): { gray: Mat; x: number } | undefined {
  const x = Math.max(0, Math.round(box.x));
  const y = Math.max(0, Math.round(box.y));
  const w = Math.min(Math.round(box.w), page.cols - x);
  const h = Math.min(Math.round(box.h), page.rows - y);
  if (w < minSide || h < minSide) return undefined;
  return { gray: page.getRegion(new cv.Rect(x, y, w, h)).bgrToGray(), x };
}

/** A line's grey image with its darkest ink and paper; undefined when too small or without contrast. */
function lineGray(page: Mat, line: Box): { gray: Mat; x: number; darkest: number; paper: number } | undefined {
  const region = grayIn(page, line, 8);
  if (!region) return undefined;
  const { gray, x } = region;
  const darkest = gray.minMaxLoc().minVal;
  const paper = percentile(gray, 0.8);
  return paper - darkest < MIN_CONTRAST ? undefined : { gray, x, darkest, paper };
}

/**
 * Whether the small mark between x0 and x1 of a line sits at the middle of the digits' height,
 * where a printed "-" is, and not at their foot, where a decimal point is. Blur shrinks this
 * font's short minus to a dot the recogniser reads as "." ("40-4=36" → "40.4=36"); its height
 * still tells. Measured from the digits' top in digit heights: a "-" at 0.55–0.68 on hard pages,
 * a decimal point at 0.76 or lower down.
 */
export function isMidHeightDot(page: Mat, line: Box, x0: number, x1: number): boolean {
  const g = lineGray(page, line);
  if (!g) return false;
  const centre = (x0 + x1) / 2 - g.x;
  // A blurred minus can be too faint for the usual cut-off ("79-13"), or joined by it to the
  // digits beside it ("84-41"): lighter and then darker cut-offs find it.
  for (const f of [0.5, 0.6, 0.4, 0.3]) {
    const found = lineMarks(g.gray, g.darkest + f * (g.paper - g.darkest));
    if (!found) return false;
    const { marks, H, middle } = found;
    const dot = marks
      .filter((m) => m.h < 0.45 * H && m.w < 0.6 * H && m.x - 2 <= centre && centre <= m.x + m.w + 2)
      .sort((a, b) => b.area - a.area)[0];
    if (!dot) continue;
    const fromTop = (dot.y + dot.h / 2 - (middle - H / 2)) / H;
    return fromTop >= 0.3 && fromTop <= 0.72;
  }
  return false;
}

function equalsMarks(gray: Mat, cut: number): { x0: number; x1: number }[] {
  const read = lineMarks(gray, cut);
  if (!read) return [];
  const { marks, H, middle } = read;
  const centred = (top: number, bottom: number): boolean => Math.abs((top + bottom) / 2 - middle) <= 0.2 * H;
  const found: { x0: number; x1: number }[] = [];
  const bars = marks.filter((m) => m.h < 0.25 * H && m.w >= 0.34 * H && m.w > 1.5 * m.h);
  for (const a of bars) {
    for (const b of bars) {
      const overlap = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const between = b.y - (a.y + a.h);
      if (a === b || between < 0 || between > 0.35 * H || overlap < 0.5 * Math.min(a.w, b.w) || !centred(a.y, b.y + b.h)) continue;
      found.push({ x0: Math.min(a.x, b.x), x1: Math.max(a.x + a.w, b.x + b.w) });
    }
  }
  for (const m of marks) {
    if (m.h >= 0.25 * H && m.h <= 0.55 * H && m.w >= 0.3 * H && m.w <= 0.9 * H && centred(m.y, m.y + m.h)) found.push({ x0: m.x, x1: m.x + m.w });
  }
  return found;
}

/** Columns and rows of the window an operator's shape is classified from (`signWindow`). */
export const SIGN_WINDOW = 16;

/**
 * The ink around an operator as the operator-shape classifier sees it: a square 1.2 digit heights
 * on a side, centred on the character across and on the middle of the digits beside it up and
 * down (a handwritten answer makes the line box taller and the sign sit anywhere in it), scaled to
 * SIGN_WINDOW × SIGN_WINDOW. Each value is the ink's darkness from the paper (0) to the line's
 * darkest ink (1), so light print, shadow and exposure look alike. Undefined when the line shows no digits.
 */
export function signWindow(page: Mat, line: Box, x0: number, x1: number): Float32Array | undefined {
  const g = lineGray(page, line);
  if (!g) return undefined;
  const found = lineMarks(g.gray, g.darkest + 0.5 * (g.paper - g.darkest));
  if (!found) return undefined;
  const side = Math.max(SIGN_WINDOW, Math.round(1.2 * found.H));
  const left = Math.round((x0 + x1) / 2 - side / 2);
  const top = Math.round(Math.max(0, Math.round(line.y)) + middleBeside(found, (x0 + x1) / 2 - g.x) - side / 2);
  // The part of the square on the page; what falls off an edge is paper.
  const x = Math.max(0, left);
  const y = Math.max(0, top);
  const w = Math.min(left + side, page.cols) - x;
  const h = Math.min(top + side, page.rows) - y;
  if (w < 2 || h < 2) return undefined;
  const paper = Math.round(g.paper);
  const square = page
    .getRegion(new cv.Rect(x, y, w, h))
    .bgrToGray()
    .copyMakeBorder(y - top, top + side - (y + h), x - left, left + side - (x + w), cv.BORDER_CONSTANT, paper)
    .resize(SIGN_WINDOW, SIGN_WINDOW, 0, 0, cv.INTER_AREA);
  const px = square.getData();
  const out = new Float32Array(SIGN_WINDOW * SIGN_WINDOW);
  const range = paper - g.darkest;
  for (let i = 0; i < out.length; i++) out[i] = Math.min(1, Math.max(0, (paper - (px[i] as number)) / range));
  return out;
}

/**
 * The share of a line's ink between x0 and x1 in the pen's blue; undefined without ink there, or
 * when the whole line holds less pen ink than a tenth of a digit's area (print only, or a pencil
 * page, whose answers are as grey as the print). Blue is told by blue minus red on the flattened
 * page: print measures −15 to +3, a blue pen +23 to +73 (hard synthetic pages, shadowed and
 * JPEG'd), where saturation no longer tells them apart.
 */
function penShare(page: Mat, line: Box, x0: number, x1: number): number | undefined {
  const region = grayIn(page, line, 8);
  if (!region) return undefined;
  const { gray, x } = region;
  const h = gray.rows;
  const dark = gray.threshold(0, 255, cv.THRESH_BINARY_INV | cv.THRESH_OTSU);
  const [b, , r] = page.getRegion(new cv.Rect(x, Math.max(0, Math.round(line.y)), gray.cols, h)).splitChannels() as [Mat, Mat, Mat];
  const pen = b.sub(r).threshold(PEN_BLUE, 255, cv.THRESH_BINARY).bitwiseAnd(dark);
  if (pen.countNonZero() < 0.1 * 0.6 * h * h) return undefined;
  const from = Math.max(0, Math.round(x0 - x));
  const to = Math.min(gray.cols, Math.round(x1 - x));
  if (to <= from) return undefined;
  const cols = new cv.Rect(from, 0, to - from, h);
  const ink = dark.getRegion(cols).countNonZero();
  return ink > 0 ? pen.getRegion(cols).countNonZero() / ink : undefined;
}

/**
 * Whether the mark between x0 and x1 of a line is print in a line whose answer is written in
 * colour: the line's ink holds the pen's blue and the mark's ink next to none (see penShare).
 * Then the mark cannot be the child's (a sign in a comparison circle the lamp did not find, a
 * stray stroke).
 */
export function isPrintedMark(page: Mat, line: Box, x0: number, x1: number): boolean {
  const share = penShare(page, line, x0, x1);
  return share !== undefined && share <= 0.05;
}

/** Whether most of the ink between x0 and x1 of a line is the pen's blue: the child's writing (see penShare). */
export function isPenMark(page: Mat, line: Box, x0: number, x1: number): boolean {
  return (penShare(page, line, x0, x1) ?? 0) >= 0.5;
}
