import { cv, type Mat } from '../cv.js';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import { requireImage, toBgr } from './image.js';
import type { Point, Quad, ToSource } from './types.js';

/**
 * Long side of the flattened page. A 1280×960 photo's page comes out at about the size it had in
 * the photo (a little upscaled when the page filled less of the frame), which is what OCR needs.
 */
export const PAGE_LONG_SIDE = 1280;

/** A 3×3 homography as rows, applied to a point. */
export function applyHomography(h: number[][], x: number, y: number): Point {
  const w = h[2]![0]! * x + h[2]![1]! * y + h[2]![2]!;
  return [(h[0]![0]! * x + h[0]![1]! * y + h[0]![2]!) / w, (h[1]![0]! * x + h[1]![1]! * y + h[1]![2]!) / w];
}

const dist = (a: Point, b: Point): number => Math.hypot(b[0] - a[0], b[1] - a[1]);

/**
 * Cuts the page out of the photo and flattens it to a rectangle with the quad's aspect (mean of
 * opposite sides), long side PAGE_LONG_SIDE. `toSource` maps a page point back into the photo.
 */
export function warpPage(img: Mat, quad: Quad): { page: Mat; toSource: ToSource; fromSource: ToSource } {
  requireImage(img, 'warpPage');
  checkQuad(quad);
  const w = (dist(quad[0], quad[1]) + dist(quad[3], quad[2])) / 2;
  const h = (dist(quad[0], quad[3]) + dist(quad[1], quad[2])) / 2;
  const scale = PAGE_LONG_SIDE / Math.max(w, h);
  const outW = Math.max(16, Math.round(w * scale));
  const outH = Math.max(16, Math.round(h * scale));
  const src = quad.map(([x, y]) => new cv.Point2(x, y));
  const dst = [new cv.Point2(0, 0), new cv.Point2(outW, 0), new cv.Point2(outW, outH), new cv.Point2(0, outH)];
  const m = cv.getPerspectiveTransform(src, dst);
  const page = toBgr(img).warpPerspective(m, new cv.Size(outW, outH), cv.INTER_LINEAR, cv.BORDER_REPLICATE);
  const forward = m.getDataAsArray() as number[][];
  const inverse = m.inv().getDataAsArray() as number[][];
  return {
    page,
    toSource: (x, y) => applyHomography(inverse, x, y),
    fromSource: (x, y) => applyHomography(forward, x, y),
  };
}

function checkQuad(quad: Quad): void {
  const ok =
    Array.isArray(quad) &&
    quad.length === 4 &&
    quad.every((p) => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1])) &&
    Math.min(dist(quad[0], quad[1]), dist(quad[1], quad[2]), dist(quad[2], quad[3]), dist(quad[3], quad[0])) >= 16;
  if (!ok) throw new LampError(ErrorCode.INPUT_REJECTED, 'warpPage: the page corners do not form a usable quadrilateral', { quad });
}
