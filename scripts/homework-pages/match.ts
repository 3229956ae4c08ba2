/** Matching the lamp's items to a page's ground truth by where they are on the photo. */
import type { Rect } from './render.js';

/** Overlap of two [x, y, w, h] boxes as a share of the smaller one. */
export function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  return w > 0 && h > 0 ? (w * h) / Math.min(a[2] * a[3], b[2] * b[3]) : 0;
}

/**
 * For each truth item in order, the not yet matched found item whose box overlaps it most (more
 * than 30 %), or undefined when the lamp did not find it.
 */
export function matchTruth<T extends { bbox: Rect }>(truth: { bbox: Rect }[], found: T[]): (T | undefined)[] {
  const used = new Set<T>();
  return truth.map((t) => {
    let best: T | undefined;
    let bestOverlap = 0.3;
    for (const it of found) {
      const o = overlap(t.bbox, it.bbox);
      if (o > bestOverlap && !used.has(it)) [best, bestOverlap] = [it, o];
    }
    if (best) used.add(best);
    return best;
  });
}
