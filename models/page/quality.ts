import { cv, type Mat } from '../cv.js';
import { percentile } from './enhance.js';
import { requireImage, toBgr, toGray } from './image.js';
import { detectPage, quadArea, quadRotationDeg, quadSideRatio } from './quad.js';
import type { Quad, QualityIssue, QualityMetrics, QualityReport } from './types.js';

/**
 * The quality gate: is this photo good enough to read a child's homework from? It says no with
 * one specific, kind sentence the lamp speaks, so the child can fix the one thing that is wrong.
 *
 * Thresholds were chosen from measurements on synthetic photos of worksheets (models/page/
 * testing.ts: 1280×960 and 1280×720, cream paper, wood/dark/patterned/light desks, JPEG 60–90),
 * with the numbers in the comments below, and set between the good and the bad cases.
 */

/**
 * Page smaller than this fraction of the frame: the book is not really under the lamp.
 * Pages placed as intended cover 0.5–0.95.
 */
export const MIN_PAGE_AREA_RATIO = 0.2;
/** Paper touching this many frame sides: the camera sees only part of the page. */
export const TOO_CLOSE_SIDES = 3;
/** Paper filling this much of the frame without a page outline is a page held too close. */
export const TOO_CLOSE_PAPER_RATIO = 0.9;
/** Mean grey of the page below this is too dark to read (well-lit pages: 190–230; exposure ×0.35: ≈ 75). */
export const MIN_BRIGHTNESS = 90;
/**
 * Glare or overexposure: much of the page clipped white (≥ 250) *and* the ink washed out (its
 * level, the page's 1st grey percentile at SHARPNESS_WIDTH, lighter than MAX_INK_LEVEL). Clipping
 * alone is not enough: clean white paper on an auto-exposed camera clips 90 % of the page
 * (fixture easy-2) with black print. Thin print measures 70–105 at that scale on the fixtures;
 * a photo washed out by glare 170+.
 */
export const MAX_CLIPPED_RATIO = 0.3;
export const MAX_INK_LEVEL = 140;
/**
 * With no page found, a frame darker than this is a dark room rather than an empty desk: dark
 * rooms measured 20–25 (fixture dark-7: 24.7), an empty dark desk under the lamp 38–45.
 */
export const DARK_FRAME_BRIGHTNESS = 33;
/** Rotation beyond this (degrees) is more than deskewing and reading should have to undo. */
export const MAX_ROTATION_DEG = 25;
/** Opposite sides shorter than this fraction of each other: the camera sees the page too obliquely. */
export const MIN_SIDE_RATIO = 0.6;
/**
 * Normalised sharpness (see sharpnessOf) below this is blurred. Measured on 1280×960 photos of
 * pages with 2×2 to 10×4 problems, exposure ×0.5–1, no added noise: sharp 6.3–8.4; Gaussian blur
 * σ 2 px (still reads well) 1.2–1.7; σ 2.5: 0.75–1.0; σ 3 (hard to read) 0.53–0.80; σ 4: 0.33–0.72.
 * Noise σ 4–8 raises blurred figures by 0.1–2 (see sharpnessOf).
 */
export const MIN_SHARPNESS = 0.75;
/**
 * Raw Laplacian variance (at SHARPNESS_WIDTH) below this is blurred whatever the ratio says: when
 * the blur is much wider than the strokes, the page's detail blurs as much as its edges and the
 * ratio stops falling. Sharp pages measured 100–3600 (dim sparse page ≈ 100, fixtures 280–3600);
 * the blurred fixture 23; σ 2 blur on sparse pages 11–41.
 */
export const MIN_LAPLACIAN_VAR = 50;
/** Width the page area is scaled to before measuring sharpness, so every camera mode compares alike. */
export const SHARPNESS_WIDTH = 640;

export const HINTS: Record<QualityIssue, string> = {
  no_page: '我没看到作业本，把它放在灯下面吧',
  too_dark: '太暗了，把灯调亮一点',
  too_bright: '太亮了，反光看不清',
  blurry: '有点模糊，拿稳别动哦',
  too_close: '离远一点，让我看到整页',
  tilted: '放正一点',
};

function verdict(issue: QualityIssue | undefined, metrics: QualityMetrics, quad?: Quad): QualityReport {
  const base = quad ? { metrics, quad } : { metrics };
  return issue ? { ok: false, issue, hint: HINTS[issue], ...base } : { ok: true, ...base };
}

/** Checks a photo before anything tries to read it. */
export function assessQuality(img: Mat): QualityReport {
  requireImage(img, 'assessQuality');
  const bgr = toBgr(img);
  const frameArea = bgr.rows * bgr.cols;
  const det = detectPage(bgr);
  const metrics: QualityMetrics = {
    sharpness: 0,
    sharpnessNorm: 0,
    brightness: 0,
    clippedRatio: 0,
    inkLevel: 0,
    pageAreaRatio: det.quad ? quadArea(det.quad) / frameArea : 0,
    paperRatio: det.paperRatio,
    touchingSides: det.touchingSides,
    rotationDeg: det.quad ? quadRotationDeg(det.quad) : 0,
    sideRatio: det.quad ? quadSideRatio(det.quad) : 1,
  };
  if (det.touchingSides >= TOO_CLOSE_SIDES || (!det.quad && det.paperRatio >= TOO_CLOSE_PAPER_RATIO)) {
    measureInk(bgr, det.quad, metrics);
    return verdict('too_close', metrics, det.quad);
  }
  if (!det.quad || metrics.pageAreaRatio < MIN_PAGE_AREA_RATIO) {
    // Even without a page, say whether the room is simply dark: a dark frame hides the page.
    const gray = toGray(bgr);
    metrics.brightness = round1(first(gray.meanStdDev().mean));
    return verdict(metrics.brightness < DARK_FRAME_BRIGHTNESS ? 'too_dark' : 'no_page', metrics, det.quad);
  }
  measureInk(bgr, det.quad, metrics);
  if (metrics.brightness < MIN_BRIGHTNESS) return verdict('too_dark', metrics, det.quad);
  if (metrics.clippedRatio > MAX_CLIPPED_RATIO && metrics.inkLevel > MAX_INK_LEVEL) return verdict('too_bright', metrics, det.quad);
  if (Math.abs(metrics.rotationDeg) > MAX_ROTATION_DEG || metrics.sideRatio < MIN_SIDE_RATIO) return verdict('tilted', metrics, det.quad);
  if (metrics.sharpnessNorm < MIN_SHARPNESS || metrics.sharpness < MIN_LAPLACIAN_VAR) return verdict('blurry', metrics, det.quad);
  return verdict(undefined, metrics, det.quad);
}

/** Brightness, clipping and sharpness over the page area (or the whole frame without a quad). */
function measureInk(bgr: Mat, quad: Quad | undefined, m: QualityMetrics): void {
  const gray = toGray(bgr);
  let region = gray;
  let mask: Mat | undefined;
  if (quad) {
    // The quad shrunk 6 % towards its centre, so the desk at the page edge does not count.
    const cx = (quad[0][0] + quad[1][0] + quad[2][0] + quad[3][0]) / 4;
    const cy = (quad[0][1] + quad[1][1] + quad[2][1] + quad[3][1]) / 4;
    const inner = quad.map(([x, y]) => new cv.Point2(cx + (x - cx) * 0.94, cy + (y - cy) * 0.94));
    const xs = inner.map((p) => p.x);
    const ys = inner.map((p) => p.y);
    const x0 = Math.max(0, Math.floor(Math.min(...xs)));
    const y0 = Math.max(0, Math.floor(Math.min(...ys)));
    const x1 = Math.min(gray.cols, Math.ceil(Math.max(...xs)));
    const y1 = Math.min(gray.rows, Math.ceil(Math.max(...ys)));
    if (x1 - x0 >= 16 && y1 - y0 >= 16) {
      region = gray.getRegion(new cv.Rect(x0, y0, x1 - x0, y1 - y0));
      mask = new cv.Mat(region.rows, region.cols, cv.CV_8UC1, 0);
      mask.drawFillConvexPoly(inner.map((p) => new cv.Point2(p.x - x0, p.y - y0)), new cv.Vec3(255, 255, 255));
    }
  }
  const scale = SHARPNESS_WIDTH / region.cols;
  const size = new cv.Size(SHARPNESS_WIDTH, Math.max(16, Math.round(region.rows * scale)));
  const scaled = region.resize(size, 0, 0, cv.INTER_AREA);
  const scaledMask = mask ? mask.resize(size, 0, 0, cv.INTER_NEAREST) : undefined;
  const stats = scaled.meanStdDev(scaledMask);
  m.brightness = round1(first(stats.mean));
  const clipped = scaled.threshold(249, 255, cv.THRESH_BINARY);
  const inPage = scaledMask ? clipped.bitwiseAnd(scaledMask) : clipped;
  m.clippedRatio = round3(inPage.countNonZero() / (scaledMask ? Math.max(1, scaledMask.countNonZero()) : scaled.rows * scaled.cols));
  m.inkLevel = percentile(scaled, 0.01, scaledMask);
  const s = sharpnessOf(scaled, scaledMask);
  m.sharpness = round1(s.lapVar);
  m.sharpnessNorm = round3(s.norm);
}

/**
 * Laplacian variance, and the same made comparable between pages: divided by the variance of the
 * page's fine detail (grey minus a σ=8 blur), so that how much ink is on the page, its contrast
 * and the exposure cancel out and mostly edge width remains. Sensor noise is not subtracted:
 * estimates of it were unstable on sparse pages, and noise raising the figure errs towards
 * accepting a photo rather than asking a child to hold still again.
 * Filters use reflected borders: the binding's default (constant black) draws false edges.
 */
export function sharpnessOf(gray: Mat, mask?: Mat): { lapVar: number; norm: number } {
  const smooth = gray.gaussianBlur(new cv.Size(3, 3), 0, 0, cv.BORDER_REFLECT);
  const lap = smooth.laplacian(cv.CV_32F, 3, 1, 0, cv.BORDER_REFLECT);
  const lapSd = first(lap.meanStdDev(mask).stddev);
  const lapVar = lapSd * lapSd;
  const base = smooth.gaussianBlur(new cv.Size(0, 0), 8, 8, cv.BORDER_REFLECT);
  const detail = smooth.convertTo(cv.CV_32F).sub(base.convertTo(cv.CV_32F));
  const detailSd = first(detail.meanStdDev(mask).stddev);
  return { lapVar, norm: detailSd > 0 ? lapVar / (detailSd * detailSd) : 0 };
}

function first(m: Mat): number {
  return (m.getDataAsArray() as number[][])[0]![0]!;
}

const round1 = (v: number): number => Math.round(v * 10) / 10;
const round3 = (v: number): number => Math.round(v * 1000) / 1000;
