import { cv } from '../cv.js';
import { orderQuad, type Pt, rectCorners } from './geometry.js';

export interface DbOptions {
  /** A pixel is text where the probability map exceeds this. */
  thresh: number;
  /** A region is kept when the mean probability inside its box reaches this. */
  boxThresh: number;
  /** How far the shrunk text kernel is grown back: distance = area × ratio / perimeter. */
  unclipRatio: number;
  /** Shorter side (map pixels) below which a region is noise. */
  minSize: number;
  maxCandidates: number;
  /** Grow the binary map by one pixel (2×2) first: joins thin strokes and small marks to their line. */
  dilate: boolean;
}

export const DB_DEFAULTS: DbOptions = { thresh: 0.3, boxThresh: 0.6, unclipRatio: 1.5, minSize: 3, maxCandidates: 1000, dilate: false };

export interface DetectedBox { quad: Pt[]; score: number }

/**
 * Differentiable-binarization post-processing: probability map → text boxes in source pixels.
 * The network predicts a shrunk kernel of each text region; we binarise it, take each connected
 * region's minimum-area rectangle, score it by the mean probability inside, and grow it back.
 */
export function dbBoxes(prob: Float32Array, mapW: number, mapH: number, srcW: number, srcH: number, opts: DbOptions = DB_DEFAULTS): DetectedBox[] {
  const bits = Buffer.alloc(mapW * mapH);
  for (let i = 0; i < bits.length; i++) bits[i] = (prob[i] as number) > opts.thresh ? 255 : 0;
  let bitmap = new cv.Mat(bits, mapH, mapW, cv.CV_8UC1);
  if (opts.dilate) bitmap = bitmap.dilate(new cv.Mat(2, 2, cv.CV_8UC1, 1));
  const contours = bitmap.findContours(cv.RETR_LIST, cv.CHAIN_APPROX_SIMPLE).slice(0, opts.maxCandidates);
  const boxes: DetectedBox[] = [];
  for (const contour of contours) {
    const r = contour.minAreaRect();
    const { width: w, height: h } = r.size;
    if (Math.min(w, h) < opts.minSize) continue;
    const kernel = orderQuad(rectCorners(r.center.x, r.center.y, w, h, r.angle));
    const score = meanInside(prob, mapW, mapH, kernel);
    if (score < opts.boxThresh) continue;
    // Offsetting a rectangle outward by d (round joins) and taking the minimum-area rectangle of
    // the result gives the same rectangle grown by d on every side: no polygon clipper needed.
    const d = (w * h * opts.unclipRatio) / (2 * (w + h));
    if (Math.min(w, h) + 2 * d < opts.minSize + 2) continue;
    const grown = orderQuad(rectCorners(r.center.x, r.center.y, w + 2 * d, h + 2 * d, r.angle));
    const quad = grown.map(([x, y]): Pt => [clamp(Math.round((x / mapW) * srcW), 0, srcW), clamp(Math.round((y / mapH) * srcH), 0, srcH)]);
    const side = (a: Pt, b: Pt) => Math.hypot(a[0] - b[0], a[1] - b[1]);
    const [p0, p1, , p3] = quad as [Pt, Pt, Pt, Pt];
    if (side(p0, p1) <= 3 || side(p0, p3) <= 3) continue;
    boxes.push({ quad, score });
  }
  return boxes;
}

/** Mean probability inside a quadrilateral, over the pixels its filled polygon covers. */
function meanInside(prob: Float32Array, mapW: number, mapH: number, quad: Pt[]): number {
  const xs = quad.map((p) => p[0]), ys = quad.map((p) => p[1]);
  const x0 = clamp(Math.floor(Math.min(...xs)), 0, mapW - 1), x1 = clamp(Math.ceil(Math.max(...xs)), 0, mapW - 1);
  const y0 = clamp(Math.floor(Math.min(...ys)), 0, mapH - 1), y1 = clamp(Math.ceil(Math.max(...ys)), 0, mapH - 1);
  const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
  const mask = new cv.Mat(bh, bw, cv.CV_8UC1, 0);
  mask.drawFillPoly([quad.map(([x, y]) => new cv.Point2(Math.trunc(x - x0), Math.trunc(y - y0)))], new cv.Vec3(1, 1, 1));
  const m = mask.getData();
  let sum = 0, n = 0;
  for (let y = 0; y < bh; y++) {
    const row = (y + y0) * mapW + x0;
    for (let x = 0; x < bw; x++) {
      if (m[y * bw + x]) {
        sum += prob[row + x] as number;
        n++;
      }
    }
  }
  return n ? sum / n : 0;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
