import { cv } from '../cv.js';
import type { DetectedBox } from './db-postprocess.js';
import { boundsOf, orderQuad, type Pt, rectCorners } from './geometry.js';

/**
 * Joins boxes that continue one text row: the detector often cuts "90 - 48 =" from the answer "42"
 * written a little further right, and finds a lone digit "7" only as a sliver. Two boxes join when
 * the centre of the lower one lies within the vertical span of the taller one and the horizontal gap
 * between them is under `gap` × the taller box's height. The joined box is the minimum-area
 * rectangle around both, so a slightly skewed row stays skewed.
 */
export function mergeRowNeighbours(boxes: DetectedBox[], gap: number): DetectedBox[] {
  if (gap <= 0 || boxes.length < 2) return boxes;
  let items = boxes.map((b) => ({ ...b, b: boundsOf(b.quad), weight: boundsOf(b.quad).w }));
  let merged = true;
  while (merged) {
    merged = false;
    items.sort((p, q) => p.b.x - q.b.x);
    outer: for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const l = items[i] as (typeof items)[number], r = items[j] as (typeof items)[number];
        const tall = l.b.h >= r.b.h ? l.b : r.b, short = l.b.h >= r.b.h ? r.b : l.b;
        const cy = short.y + short.h / 2;
        if (cy < tall.y || cy > tall.y + tall.h) continue;
        const dx = r.b.x - (l.b.x + l.b.w);
        if (dx >= gap * tall.h) continue;
        if (r.b.x + r.b.w <= l.b.x + l.b.w) continue; // one inside the other: leave it to recognition
        const quad = enclosingRect([...l.quad, ...r.quad]);
        const weight = l.weight + r.weight;
        const joined = { quad, score: (l.score * l.weight + r.score * r.weight) / weight, b: boundsOf(quad), weight };
        items = items.filter((_, k) => k !== i && k !== j);
        items.push(joined);
        merged = true;
        break outer;
      }
    }
  }
  return items.map(({ quad, score }) => ({ quad, score }));
}

function enclosingRect(points: Pt[]): Pt[] {
  const r = new cv.Contour(points.map(([x, y]) => new cv.Point2(Math.round(x), Math.round(y)))).minAreaRect();
  return orderQuad(rectCorners(r.center.x, r.center.y, r.size.width, r.size.height, r.angle)).map(([x, y]): Pt => [Math.round(x), Math.round(y)]);
}
