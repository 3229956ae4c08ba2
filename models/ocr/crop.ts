import { cv, type Mat } from '../cv.js';
import { dist, type Pt } from './geometry.js';

export interface LineCrop {
  img: Mat;
  /** The crop was turned a quarter (a tall box: vertical text) to read it left to right. */
  rotated90: boolean;
}

/**
 * The text inside a quad, straightened by a bilinear perspective warp (on hard synthetic pages
 * 0.6 points more verdicts right than bicubic, on each of two sets) to a rectangle as wide as the quad's
 * longer horizontal edge and as tall as its longer vertical edge. Boxes 1.5× taller than wide hold
 * vertical text; they are turned a quarter counter-clockwise so their top comes first.
 */
export function cropQuad(image: Mat, quad: Pt[]): LineCrop | undefined {
  const [p0, p1, p2, p3] = quad as [Pt, Pt, Pt, Pt];
  const w = Math.round(Math.max(dist(p0, p1), dist(p3, p2)));
  const h = Math.round(Math.max(dist(p0, p3), dist(p1, p2)));
  if (w < 2 || h < 2) return undefined;
  const src = quad.map(([x, y]) => new cv.Point2(x, y));
  const dst = [new cv.Point2(0, 0), new cv.Point2(w, 0), new cv.Point2(w, h), new cv.Point2(0, h)];
  const m = cv.getPerspectiveTransform(src, dst);
  const img = image.warpPerspective(m, new cv.Size(w, h), cv.INTER_LINEAR, cv.BORDER_REPLICATE);
  if (h / w >= 1.5) return { img: img.rotate(cv.ROTATE_90_COUNTERCLOCKWISE), rotated90: true };
  return { img, rotated90: false };
}
