import { cv, type Mat } from '../cv.js';
import { requireImage, toBgr, toGray } from './image.js';
import type { Point, ToSource } from './types.js';

/**
 * Removing the small rotation the corner fit leaves (a page photographed slightly curled, a
 * worksheet printed askew). Text lines are found by projection: the dark pixels of a half-size
 * binarised page are projected onto a tilted vertical axis for each candidate angle, and the angle
 * whose profile is peakiest (sum of squared bin counts) is the one where the lines lie flat.
 */

/** Search range, degrees: the quad fit already removes the page's own rotation. */
export const DESKEW_MAX_DEG = 5;
/** Below this the page is left as it is: resampling costs sharpness for no gain. */
export const DESKEW_MIN_DEG = 0.3;
/** Working width of the binarised copy. */
const WORK_WIDTH = 640;
/** Page margin ignored, as a fraction: warped page edges can hold a strip of desk. */
const MARGIN = 0.04;

/** The content's rotation in degrees (counter-clockwise on screen positive), within ±DESKEW_MAX_DEG. */
export function estimateSkewDeg(page: Mat): number {
  requireImage(page, 'deskew');
  const gray = toGray(page);
  const scale = Math.min(1, WORK_WIDTH / gray.cols);
  const small = scale < 1 ? gray.resize(new cv.Size(Math.round(gray.cols * scale), Math.round(gray.rows * scale)), 0, 0, cv.INTER_AREA) : gray;
  const ink = small.adaptiveThreshold(255, cv.ADAPTIVE_THRESH_MEAN_C, cv.THRESH_BINARY_INV, 25, 15);
  const mx = Math.round(small.cols * MARGIN);
  const my = Math.round(small.rows * MARGIN);
  const inner = ink.getRegion(new cv.Rect(mx, my, small.cols - 2 * mx, small.rows - 2 * my));
  const pts = inner.findNonZero();
  if (pts.length < 50) return 0;
  // At most 40 000 points: enough for a stable profile, and the search stays ~10 ms in JS.
  const step = Math.max(1, Math.floor(pts.length / 40000));
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < pts.length; i += step) {
    xs.push(pts[i]!.x);
    ys.push(pts[i]!.y);
  }
  const h = inner.rows;
  const w = inner.cols;
  const score = (deg: number): number => {
    const t = Math.tan((deg * Math.PI) / 180);
    const off = Math.ceil(Math.abs(t) * w) + 1;
    const bins = new Float64Array(h + 2 * off + 2);
    for (let i = 0; i < xs.length; i++) bins[Math.round(ys[i]! + xs[i]! * t) + off]! += 1;
    let s = 0;
    for (let i = 0; i < bins.length; i++) s += bins[i]! * bins[i]!;
    return s;
  };
  let best = 0;
  let bestScore = -1;
  for (let d = -DESKEW_MAX_DEG; d <= DESKEW_MAX_DEG + 1e-9; d += 0.5) {
    const s = score(d);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  const coarse = best;
  for (let d = coarse - 0.5; d <= coarse + 0.5 + 1e-9; d += 0.05) {
    const s = score(d);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  return Math.round(best * 100) / 100;
}

/**
 * Rotates the page so its text lines are horizontal. `angleDeg` is the rotation found in the
 * content (0 when below DESKEW_MIN_DEG, and then the page is returned untouched); `toUnrotated`
 * maps a point of the result back to the page that came in.
 */
export function deskew(page: Mat): { page: Mat; angleDeg: number; toUnrotated: ToSource } {
  const angle = estimateSkewDeg(page);
  if (Math.abs(angle) < DESKEW_MIN_DEG) return { page, angleDeg: 0, toUnrotated: (x, y): Point => [x, y] };
  const bgr = toBgr(page);
  const centre = new cv.Point2(bgr.cols / 2, bgr.rows / 2);
  const m = cv.getRotationMatrix2D(centre, -angle, 1);
  const out = bgr.warpAffine(m, new cv.Size(bgr.cols, bgr.rows), cv.INTER_LINEAR, cv.BORDER_REPLICATE);
  // Inverse of the rotation: the same rotation by +angle about the same centre.
  const inv = cv.getRotationMatrix2D(centre, angle, 1).getDataAsArray() as number[][];
  const toUnrotated = (x: number, y: number): Point => [inv[0]![0]! * x + inv[0]![1]! * y + inv[0]![2]!, inv[1]![0]! * x + inv[1]![1]! * y + inv[1]![2]!];
  return { page: out, angleDeg: angle, toUnrotated };
}
