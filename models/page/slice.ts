import { cv, type Mat } from '../cv.js';
import { requireImage, toGray } from './image.js';
import type { LineBand, Region } from './types.js';

/**
 * Cutting the normalised page into text lines and, within each line, into problems. Arithmetic
 * drills are printed in 2–4 columns, so a row holds several problems separated by wide blank
 * gaps, while the characters of one problem ("23 + 45 = 68") are separated by narrow ones.
 */

/** Grey below this is ink on the normalised page (paper ≈ 255, print ≈ 0–60, blue answers ≈ 70–110, pencil ≈ 80–150). */
export const INK_GRAY_MAX = 170;
/** Page margin ignored, as a fraction of each side: warped page edges can hold a strip of desk. */
export const SLICE_MARGIN = 0.02;
/** A row holds text when at least this fraction of the page width is ink (and at least 2 px). */
const ROW_INK_FRACTION = 0.002;
/** Blank rows shorter than this fraction of the page height do not split a line (broken strokes). */
const LINE_MERGE_GAP = 0.004;
/** Bands thinner than this fraction of the page height are specks or rules, not lines. */
const MIN_LINE_HEIGHT = 0.008;
/** A blank gap in a line at least this many line heights wide separates two problems… */
export const REGION_GAP_LINE_HEIGHTS = 1.5;
/** …and at least this fraction of the page width. */
export const REGION_GAP_MIN_FRACTION = 0.025;

/**
 * Ink of the page as a 0/255 mask, without ruled lines: long horizontal and vertical runs (exercise
 * book rules, margins, table borders) are found by opening with long thin kernels and removed.
 */
export function textMask(page: Mat): Mat {
  requireImage(page, 'sliceLines');
  const gray = toGray(page);
  const ink = gray.threshold(INK_GRAY_MAX, 255, cv.THRESH_BINARY_INV);
  const hk = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(Math.max(15, Math.round(gray.cols / 8)), 1));
  const vk = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(1, Math.max(15, Math.round(gray.rows / 8))));
  const rules = ink.morphologyEx(hk, cv.MORPH_OPEN).bitwiseOr(ink.morphologyEx(vk, cv.MORPH_OPEN));
  const text = ink.bitwiseAnd(rules.bitwiseNot());
  const mx = Math.round(gray.cols * SLICE_MARGIN);
  const my = Math.round(gray.rows * SLICE_MARGIN);
  const out = new cv.Mat(gray.rows, gray.cols, cv.CV_8UC1, 0);
  text.getRegion(new cv.Rect(mx, my, gray.cols - 2 * mx, gray.rows - 2 * my)).copyTo(out.getRegion(new cv.Rect(mx, my, gray.cols - 2 * mx, gray.rows - 2 * my)));
  return out;
}

/** Ink pixel counts per row (axis 'rows') or per column ('cols') of a 0/255 mask. */
function profile(mask: Mat, axis: 'rows' | 'cols'): number[] {
  const sums = mask.reduce(axis === 'rows' ? 1 : 0, cv.REDUCE_SUM, cv.CV_32S).getDataAsArray() as number[][];
  return axis === 'rows' ? sums.map((r) => r[0]! / 255) : sums[0]!.map((v) => v / 255);
}

/** Runs of indices where `on(i)` holds, with gaps of at most `maxGap` bridged. */
function runs(n: number, on: (i: number) => boolean, maxGap: number): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  let last = -1;
  for (let i = 0; i < n; i++) {
    if (!on(i)) continue;
    if (start >= 0 && i - last - 1 <= maxGap) last = i;
    else {
      if (start >= 0) out.push([start, last]);
      start = i;
      last = i;
    }
  }
  if (start >= 0) out.push([start, last]);
  return out;
}

/** Text line bands, top to bottom, from the horizontal projection of the ink. */
export function sliceLines(page: Mat, mask: Mat = textMask(page)): LineBand[] {
  const rows = profile(mask, 'rows');
  const minInk = Math.max(2, ROW_INK_FRACTION * mask.cols);
  const bands = runs(rows.length, (i) => rows[i]! >= minInk, Math.round(LINE_MERGE_GAP * mask.rows));
  const minH = Math.max(3, MIN_LINE_HEIGHT * mask.rows);
  return bands.filter(([a, b]) => b - a + 1 >= minH).map(([a, b]) => ({ y: a, h: b - a + 1 }));
}

/** Problem regions: within each line band, ink grouped into blocks separated by wide blank gaps. */
export function sliceRegions(page: Mat, lines?: LineBand[], mask: Mat = textMask(page)): Region[] {
  const bands = lines ?? sliceLines(page, mask);
  const regions: Region[] = [];
  for (const band of bands) {
    const strip = mask.getRegion(new cv.Rect(0, band.y, mask.cols, band.h));
    const cols = profile(strip, 'cols');
    const gap = Math.max(REGION_GAP_LINE_HEIGHTS * band.h, REGION_GAP_MIN_FRACTION * mask.cols);
    for (const [a, b] of runs(cols.length, (i) => cols[i]! > 0, Math.round(gap))) {
      const block = strip.getRegion(new cv.Rect(a, 0, b - a + 1, band.h));
      const rowsIn = profile(block, 'rows');
      const top = rowsIn.findIndex((v) => v > 0);
      let bottom = rowsIn.length - 1;
      while (bottom > top && rowsIn[bottom]! === 0) bottom--;
      const w = b - a + 1;
      const h = bottom - top + 1;
      // Specks (a dot of dirt, a stray pen mark) are not problems.
      if (top < 0 || w < 0.3 * band.h || h < 0.3 * band.h) continue;
      regions.push({ x: a, y: band.y + top, w, h });
    }
  }
  return regions;
}
