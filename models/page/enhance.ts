import { cv, type Mat } from '../cv.js';
import { requireImage, toBgr, toGray } from './image.js';

/**
 * Making the flattened page clean and evenly lit while keeping its colours: the grader tells a
 * child's blue answer from printed text by colour, and OCR reads the colour page.
 */

/**
 * Size of the closing that removes ink from the background estimate, on the quarter-size copy:
 * wider than the thickest stroke (printed digits at 1280 px are 4–8 px thick, 1–2 px at quarter
 * size) and than a character's inner gaps, narrower than the light's gradients.
 */
const BG_KERNEL = 15;
/** Paper level after flattening; the stretch maps it to white. */
const PAPER_LEVEL = 235;
/** The darkest ink is stretched down to black, but never from a level above this. */
const MAX_BLACK_POINT = 70;

/**
 * Mild smoothing of sensor and JPEG noise: a 3×3 Gaussian. Non-local means costs about a second
 * on this board; a bilateral filter softens thin pencil strokes. Borders are reflected (the
 * binding's default border is black and would darken the page edge).
 */
export function denoise(page: Mat): Mat {
  requireImage(page, 'denoise');
  return toBgr(page).gaussianBlur(new cv.Size(3, 3), 0, 0, cv.BORDER_REFLECT);
}

/** The paper without ink, per colour channel: closing on a quarter-size copy, smoothed, enlarged. */
export function estimateBackground(page: Mat): Mat {
  requireImage(page, 'normaliseContrast');
  const bgr = toBgr(page);
  const small = bgr.resize(new cv.Size(Math.max(8, Math.round(bgr.cols / 4)), Math.max(8, Math.round(bgr.rows / 4))), 0, 0, cv.INTER_AREA);
  const kernel = cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(BG_KERNEL, BG_KERNEL));
  const closed = small.morphologyEx(kernel, cv.MORPH_CLOSE, new cv.Point2(-1, -1), 1, cv.BORDER_REPLICATE);
  const smooth = closed.medianBlur(5).gaussianBlur(new cv.Size(0, 0), 3, 3, cv.BORDER_REFLECT);
  return smooth.resize(new cv.Size(bgr.cols, bgr.rows), 0, 0, cv.INTER_LINEAR);
}

/**
 * Flattens uneven light by dividing each channel by the background estimate (paper becomes a
 * uniform near-white, ink keeps its hue), then stretches the levels linearly so that the paper is
 * white and the darkest ink black. Debian's OpenCV binding exposes no CLAHE; after the division the
 * light is already even, so one global stretch does what a mild CLAHE on L would.
 */
export function normaliseContrast(page: Mat): Mat {
  requireImage(page, 'normaliseContrast');
  const bgr = toBgr(page);
  const bg = estimateBackground(bgr).convertTo(cv.CV_32FC3, 1, 1); // +1: never divide by zero
  const flat = bgr.convertTo(cv.CV_32FC3).hDiv(bg).convertTo(cv.CV_8UC3, PAPER_LEVEL);
  const gray = toGray(flat);
  const black = Math.min(MAX_BLACK_POINT, percentile(gray, 0.005));
  const alpha = 255 / Math.max(1, PAPER_LEVEL - 10 - black);
  return flat.convertTo(cv.CV_8UC3, alpha, -black * alpha);
}

/** The value below which the given fraction of pixels lie (from a 256-bin histogram). */
export function percentile(gray: Mat, q: number, mask?: Mat): number {
  const hist = cv.calcHist(gray, [new cv.HistAxes({ channel: 0, bins: 256, ranges: [0, 256] })], mask);
  const counts = (hist.getDataAsArray() as number[][]).map((r) => r[0]!);
  const total = counts.reduce((a, b) => a + b, 0);
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += counts[v]!;
    if (acc >= q * total) return v;
  }
  return 255;
}
