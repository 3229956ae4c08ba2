import { cv, type Mat } from '../cv.js';
import { requireImage, toBgr } from './image.js';
import type { Point, Quad } from './types.js';

/**
 * Finding the sheet in the photo. Paper is the brightest, least saturated large thing under the
 * lamp: the photo is shrunk, each pixel scored as value − saturation (HSV), the score split by
 * Otsu, text holes closed, and the largest blob taken as the page. A shadow across the page (the
 * child's arm, the lamp head) puts part of it under Otsu's cut-off, so the page is then taken again
 * with a cut-off of its own at every place, halfway between the darkest and brightest score
 * around it (`LOCAL_WINDOW`): at the page's edge that is halfway between desk and paper in the
 * shade as in the light. Its outline is simplified to
 * four corners (or boxed by the minimum-area rectangle), and each side is then re-fitted as a
 * straight line through the outline's points so that corners stay accurate when a corner is
 * rounded, dog-eared or covered by a finger.
 */

/** Long side of the working copy. 400 px keeps corner error near 1 % of a 1280 px photo. */
export const DETECT_LONG_SIDE = 400;
/**
 * Side of the neighbourhood (working-copy pixels, ≈ 100 px of a 1280 px photo) whose darkest and
 * brightest scores set the cut-off for shaded paper, and how far apart they must be to count as
 * an edge (paper scores 85–210 in the light or the shade of the synthetic hard pages, desks
 * 0–80; wood grain varies by less). On 150 synthetic medium and hard pages a corner was found
 * more than 40 px off on 15 pages with Otsu alone and on 2 with this.
 */
export const LOCAL_WINDOW = 31;
export const LOCAL_CONTRAST = 50;
/**
 * Paper in the shade is this unsaturated (HSV, smoothed): without it, a light dot of a patterned
 * cloth touching the page joined it and moved a corner by 1.6 % of the diagonal.
 */
export const SHADED_PAPER_MAX_SATURATION = 60;
/** A blob smaller than this fraction of the frame is not a page. */
export const MIN_BLOB_RATIO = 0.08;
/**
 * The page must score at least this much (value − saturation, 0–255) on average: cream paper
 * under the lamp measures 150–230 (≈ 50 in a room dark enough to say so); dark and wooden desks
 * 0–60, light desks around 120–140. Low on purpose: a dim page must still be found, so the gate
 * can say "too dark" rather than "no page"…
 */
export const MIN_PAPER_SCORE = 30;
/** …and this much more than what surrounds it, or it is only a bright patch of desk. */
export const MIN_PAPER_CONTRAST = 30;
/**
 * A blob covering (nearly) the whole frame has no surroundings to compare with; it counts as paper
 * held too close only when it is as white as paper (a plain light desk scores ≈ 140).
 */
export const MIN_FULL_FRAME_PAPER_SCORE = 165;
/** Mean HSV saturation of paper stays below this (cream paper ≈ 25, under warm light ≈ 60; wood and cloth 120+). */
export const MAX_PAPER_SATURATION = 85;
/** The blob must fill its four-corner outline this well: a page is a solid quadrilateral. */
export const MIN_QUAD_FILL = 0.85;
/** A frame side counts as touched when the page covers this fraction of its border pixels. */
export const TOUCH_FRACTION = 0.2;

export interface PageDetection {
  /** The page corners in photo pixels, when a page-like blob was found. */
  quad?: Quad;
  /** Fraction of the frame covered by the page blob (0 when none). */
  paperRatio: number;
  /** Frame sides (0–4) the page blob touches. */
  touchingSides: number;
  /** Mean paper score inside the blob and outside it, for diagnostics. */
  paperScore: number;
  deskScore: number;
}

const NONE: PageDetection = { paperRatio: 0, touchingSides: 0, paperScore: 0, deskScore: 0 };

/** The sheet's corners, TL, TR, BR, BL, or undefined when no page is in view. */
export function findPageQuad(img: Mat): Quad | undefined {
  return (detectPage(img)).quad;
}

/** findPageQuad plus what the quality gate needs to know about the paper it saw. */
export function detectPage(img: Mat): PageDetection {
  requireImage(img, 'findPageQuad');
  const bgr = toBgr(img);
  const scale = DETECT_LONG_SIDE / Math.max(bgr.cols, bgr.rows);
  const w = Math.max(16, Math.round(bgr.cols * scale));
  const h = Math.max(16, Math.round(bgr.rows * scale));
  const small = bgr.resize(new cv.Size(w, h), 0, 0, cv.INTER_AREA);
  const hsv = small.cvtColor(cv.COLOR_BGR2HSV);
  const [, sat, val] = hsv.splitChannels();
  const score = val!.sub(sat!).gaussianBlur(new cv.Size(5, 5), 0, 0, cv.BORDER_REPLICATE);
  const otsu = solid(score.threshold(0, 255, cv.THRESH_BINARY | cv.THRESH_OTSU));
  const contours = otsu.findContours(cv.RETR_EXTERNAL, cv.CHAIN_APPROX_NONE);
  if (contours.length === 0) return NONE;
  let best = contours[0]!;
  for (const c of contours) if (c.area > best.area) best = c;
  if (best.area < MIN_BLOB_RATIO * w * h) return NONE;
  best = shadedPage(score, sat!.gaussianBlur(new cv.Size(5, 5), 0, 0, cv.BORDER_REPLICATE), otsu, best) ?? best;

  const blob = new cv.Mat(h, w, cv.CV_8UC1, 0);
  blob.drawContours([best.getPoints()], 0, new cv.Vec3(255, 255, 255), cv.FILLED);
  const inside = blob.countNonZero();
  const paperRatio = inside / (w * h);
  const pScore = meanUnder(score, blob);
  const dScore = inside < w * h ? meanUnder(score, blob.bitwiseNot()) : 0;
  const touchingSides = countTouchingSides(blob);
  const fullFrame = inside >= w * h * 0.98;
  if (pScore < MIN_PAPER_SCORE || (fullFrame ? pScore < MIN_FULL_FRAME_PAPER_SCORE : pScore - dScore < MIN_PAPER_CONTRAST)) {
    return { paperRatio: 0, touchingSides: 0, paperScore: pScore, deskScore: dScore };
  }
  const sScore = meanUnder(sat!, blob);
  if (sScore > MAX_PAPER_SATURATION) return { paperRatio: 0, touchingSides: 0, paperScore: pScore, deskScore: dScore };
  const corners = fitCorners(best.getPoints(), w, h);
  const fill = corners ? inside / Math.max(1, quadArea(corners)) : 0;
  const quad = corners && fill >= MIN_QUAD_FILL ? (corners.map(([x, y]) => [x / scale, y / scale]) as Quad) : undefined;
  return { ...(quad ? { quad } : {}), paperRatio, touchingSides, paperScore: pScore, deskScore: dScore };
}

/** Text holes closed and specks opened away. */
function solid(mask: Mat): Mat {
  const closed = mask.morphologyEx(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(9, 9)), cv.MORPH_CLOSE, new cv.Point2(-1, -1), 1, cv.BORDER_REPLICATE);
  return closed.morphologyEx(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(5, 5)), cv.MORPH_OPEN, new cv.Point2(-1, -1), 1, cv.BORDER_REPLICATE);
}

/**
 * The page with its shaded parts: each pixel is paper when its score is above halfway between the
 * darkest and the brightest score within `LOCAL_WINDOW` and it is no more saturated than paper —
 * where those scores differ by `LOCAL_CONTRAST` or more, i.e. near an edge; elsewhere Otsu's
 * answer stands. The outline holding the centre of Otsu's page, when it is at least as large.
 */
function shadedPage(score: Mat, saturation: Mat, otsu: Mat, page: InstanceType<typeof cv.Contour>): InstanceType<typeof cv.Contour> | undefined {
  const kernel = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(LOCAL_WINDOW, LOCAL_WINDOW));
  const lo = score.erode(kernel).getData();
  const hi = score.dilate(kernel).getData();
  const s = score.getData();
  const global = otsu.getData();
  const sat = saturation.getData();
  const local = Buffer.alloc(s.length);
  for (let i = 0; i < s.length; i++) {
    const l = lo[i] as number;
    const u = hi[i] as number;
    local[i] = u - l >= LOCAL_CONTRAST ? (2 * (s[i] as number) > l + u && (sat[i] as number) <= SHADED_PAPER_MAX_SATURATION ? 255 : 0) : (global[i] as number);
  }
  const m = page.moments();
  const centre = new cv.Point2(m.m10 / m.m00, m.m01 / m.m00);
  const outline = solid(new cv.Mat(local, score.rows, score.cols, cv.CV_8UC1))
    .findContours(cv.RETR_EXTERNAL, cv.CHAIN_APPROX_NONE)
    .find((c) => c.pointPolygonTest(centre) >= 0);
  return outline && outline.area >= page.area ? outline : undefined;
}

function meanUnder(img: Mat, mask: Mat): number {
  const n = mask.countNonZero();
  if (n === 0) return 0;
  const s = img.bitwiseAnd(mask).sum() as number;
  return s / n;
}

function countTouchingSides(mask: Mat): number {
  const h = mask.rows;
  const w = mask.cols;
  const sides = [mask.getRegion(new cv.Rect(0, 0, w, 1)), mask.getRegion(new cv.Rect(0, h - 1, w, 1)), mask.getRegion(new cv.Rect(0, 0, 1, h)), mask.getRegion(new cv.Rect(w - 1, 0, 1, h))];
  return sides.filter((s) => s.countNonZero() > TOUCH_FRACTION * s.rows * s.cols).length;
}

type P2 = InstanceType<typeof cv.Point2>;

/** Four corners of the outline in working-copy pixels, ordered TL, TR, BR, BL. */
function fitCorners(points: P2[], w: number, h: number): Quad | undefined {
  const contour = new cv.Contour(points);
  const hull = contour.convexHull();
  const perimeter = hull.arcLength(true);
  let approx: Point[] | undefined;
  for (let eps = 0.02; eps <= 0.1 && !approx; eps += 0.01) {
    const poly = hull.approxPolyDP(eps * perimeter, true);
    if (poly.length === 4) approx = poly.map((p) => [p.x, p.y]);
  }
  if (!approx) approx = rotatedRectCorners(hull.minAreaRect());
  const ordered = orderCorners(approx);
  const refined = refineSides(ordered, points);
  const corners = refined ?? ordered;
  // Corners far outside the frame mean the side fit went wrong; keep the simple ones then.
  const margin = 0.1 * Math.max(w, h);
  const sane = corners.every(([x, y]) => x > -margin && y > -margin && x < w + margin && y < h + margin);
  return sane ? corners : ordered;
}

export function rotatedRectCorners(r: { center: { x: number; y: number }; size: { width: number; height: number }; angle: number }): Point[] {
  const a = (r.angle * Math.PI) / 180;
  const c = Math.cos(a);
  const s = Math.sin(a);
  const hw = r.size.width / 2;
  const hh = r.size.height / 2;
  return [
    [-hw, -hh],
    [hw, -hh],
    [hw, hh],
    [-hw, hh],
  ].map(([x, y]): Point => [r.center.x + x! * c - y! * s, r.center.y + x! * s + y! * c]);
}

/** Orders four points clockwise on screen starting at the top-left one. */
export function orderCorners(pts: Point[]): Quad {
  const cx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
  const cy = pts.reduce((a, p) => a + p[1], 0) / pts.length;
  const sorted = [...pts].sort((a, b) => Math.atan2(a[1] - cy, a[0] - cx) - Math.atan2(b[1] - cy, b[0] - cx));
  // atan2 with y pointing down sorts clockwise from the left; top-left is the one whose angle
  // lies nearest to up-left (−135°).
  let start = 0;
  let bestD = Infinity;
  sorted.forEach((p, i) => {
    const ang = Math.atan2(p[1] - cy, p[0] - cx);
    const d = Math.abs(Math.atan2(Math.sin(ang + (3 * Math.PI) / 4), Math.cos(ang + (3 * Math.PI) / 4)));
    if (d < bestD) {
      bestD = d;
      start = i;
    }
  });
  const q = [0, 1, 2, 3].map((i) => sorted[(start + i) % 4]!);
  return [q[0]!, q[1]!, q[2]!, q[3]!];
}

/**
 * Re-fits each side as a line through the outline points near it (middle 70 % of the side, so the
 * corners themselves do not bend the fit) and intersects neighbouring lines.
 */
function refineSides(q: Quad, points: P2[]): Quad | undefined {
  const lines: { px: number; py: number; dx: number; dy: number }[] = [];
  for (let i = 0; i < 4; i++) {
    const a = q[i]!;
    const b = q[(i + 1) % 4]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len < 8) return undefined;
    const ux = (b[0] - a[0]) / len;
    const uy = (b[1] - a[1]) / len;
    const tol = Math.max(2, len * 0.03);
    const near: P2[] = [];
    for (const p of points) {
      const t = (p.x - a[0]) * ux + (p.y - a[1]) * uy;
      const d = Math.abs(-(p.x - a[0]) * uy + (p.y - a[1]) * ux);
      if (t > 0.15 * len && t < 0.85 * len && d < tol) near.push(p);
    }
    if (near.length < 6) return undefined;
    const l = cv.fitLine(near, cv.DIST_HUBER, 0, 0.01, 0.01);
    lines.push({ dx: l.x, dy: l.y, px: l.z, py: l.w });
  }
  const out: Point[] = [];
  for (let i = 0; i < 4; i++) {
    const p = intersect(lines[(i + 3) % 4]!, lines[i]!);
    if (!p) return undefined;
    out.push(p);
  }
  return [out[0]!, out[1]!, out[2]!, out[3]!];
}

function intersect(l1: { px: number; py: number; dx: number; dy: number }, l2: { px: number; py: number; dx: number; dy: number }): Point | undefined {
  const det = l1.dx * l2.dy - l1.dy * l2.dx;
  if (Math.abs(det) < 1e-6) return undefined;
  const t = ((l2.px - l1.px) * l2.dy - (l2.py - l1.py) * l2.dx) / det;
  return [l1.px + t * l1.dx, l1.py + t * l1.dy];
}

/** Rotation of the quad's top edge from horizontal, degrees, counter-clockwise positive, in (−45, 45]. */
export function quadRotationDeg(q: Quad): number {
  const top = Math.atan2(-(q[1][1] - q[0][1]), q[1][0] - q[0][0]);
  const bottom = Math.atan2(-(q[2][1] - q[3][1]), q[2][0] - q[3][0]);
  let deg = ((top + bottom) / 2) * (180 / Math.PI);
  while (deg > 45) deg -= 90;
  while (deg <= -45) deg += 90;
  return deg;
}

/** Shorter over longer side for each pair of opposite sides, the smaller of the two. */
export function quadSideRatio(q: Quad): number {
  const len = (a: Point, b: Point): number => Math.hypot(b[0] - a[0], b[1] - a[1]);
  const top = len(q[0], q[1]);
  const bottom = len(q[3], q[2]);
  const left = len(q[0], q[3]);
  const right = len(q[1], q[2]);
  return Math.min(Math.min(top, bottom) / Math.max(top, bottom), Math.min(left, right) / Math.max(left, right));
}

/** Area of the quad (shoelace). */
export function quadArea(q: Quad): number {
  let s = 0;
  for (let i = 0; i < 4; i++) {
    const a = q[i]!;
    const b = q[(i + 1) % 4]!;
    s += a[0] * b[1] - b[0] * a[1];
  }
  return Math.abs(s) / 2;
}
