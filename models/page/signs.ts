import { cv, type Mat } from '../cv.js';
import { type InkMark, inkMarks, markBounds } from './image.js';

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
  const x = Math.max(0, Math.round(box.x));
  const y = Math.max(0, Math.round(box.y));
  const w = Math.min(Math.round(box.w), page.cols - x);
  const h = Math.min(Math.round(box.h), page.rows - y);
  if (w < 2 || h < 2) return undefined;
  const gray = page.getRegion(new cv.Rect(x, y, w, h)).bgrToGray();
  const { minVal, maxVal } = gray.minMaxLoc();
  if (maxVal - minVal < MIN_CONTRAST) return undefined;
  const minArea = Math.max(4, 0.01 * h * h);
  return markBounds(inkMarks(gray.threshold(0, 255, cv.THRESH_BINARY_INV | cv.THRESH_OTSU)).filter((m) => m.area >= minArea));
}
