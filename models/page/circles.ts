import { cv, type Mat } from '../cv.js';
import { inkMarks, median, PEN_BLUE, requireImage, toGray } from './image.js';

export interface Circle {
  x: number;
  y: number;
  r: number;
}

/** Points sampled around a candidate circle. */
const SAMPLES = 48;
/** A comparison circle is a ring of ink: most points on it are dark… */
const MIN_RING_INK = 0.7;
/** …and the paper just outside it is light (a digit 0 or 8 fails one of the two). */
const MAX_OUTSIDE_INK = 0.2;
/** …and the ring is thin: the sign inside crosses a few sample points at most. */
const MAX_THIN_INK = 0.3;
/** A ring with less ink than this on it is checked harder: blur and the sign may break it, a digit's stroke does too. */
const WHOLE_RING = 0.8;

/** A binary ink mask's pixels, for sampling many points without a call into OpenCV per point. */
interface InkPixels { data: Buffer; cols: number; rows: number }

const pixelsOf = (ink: Mat): InkPixels => ({ data: ink.getData(), cols: ink.cols, rows: ink.rows });

function inkFraction(ink: InkPixels, c: Circle, radius: number): number {
  let dark = 0;
  let seen = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const x = Math.round(c.x + radius * (COS[i] as number));
    const y = Math.round(c.y + radius * (SIN[i] as number));
    if (x < 0 || y < 0 || x >= ink.cols || y >= ink.rows) continue;
    seen++;
    if ((ink.data[y * ink.cols + x] as number) > 0) dark++;
  }
  return seen === 0 ? 0 : dark / seen;
}

const COS = Array.from({ length: SAMPLES }, (_, i) => Math.cos((2 * Math.PI * i) / SAMPLES));
const SIN = Array.from({ length: SAMPLES }, (_, i) => Math.sin((2 * Math.PI * i) / SAMPLES));

/** Pixels a ring may sit off the Hough transform's centre and radius. */
const OFF = 3;

/** The candidate's radius moved to the middle of the ring's ink (it may sit a pixel or two off); `ring` is the share of ink on it. */
function onRing(ink: InkPixels, at: { x: number; y: number }, r0: number): { c: Circle; ring: number; sum: number } {
  const radii = Array.from({ length: 2 * OFF + 1 }, (_, i) => r0 + i - OFF);
  const fractions = radii.map((r) => inkFraction(ink, { x: at.x, y: at.y, r }, r));
  const ring = Math.max(...fractions);
  const middle = radii.filter((_, i) => (fractions[i] as number) >= ring - 0.05);
  return { c: { x: at.x, y: at.y, r: middle.reduce((a, b) => a + b, 0) / middle.length }, ring, sum: fractions.reduce((a, b) => a + b, 0) };
}

/** The ring `fitted` at a candidate, with its centre moved too, by up to OFF pixels, to where the most sample points are ink. */
function movedRing(ink: InkPixels, v: { x: number; y: number; z: number }, fitted: ReturnType<typeof onRing>): { c: Circle; ring: number } {
  let best = fitted;
  for (let dy = -OFF; dy <= OFF; dy++) {
    for (let dx = -OFF; dx <= OFF; dx++) {
      if (dx === 0 && dy === 0) continue;
      const fit = onRing(ink, { x: v.x + dx, y: v.y + dy }, v.z);
      if (fit.ring > best.ring || (fit.ring === best.ring && fit.sum > best.sum)) best = fit;
    }
  }
  return best;
}

/**
 * The printed circles of comparison drills (45 ○ 54, the child writes > < = inside). OCR drops
 * the circle and often the sign with it; found here by a Hough transform and kept only when
 * they are a real ring (ink all around the circumference, paper just outside), so the digits
 * 0, 6, 8 and 9 are not taken for circles. Radius range in pixels of the flattened page.
 */
export function findComparisonCircles(page: Mat, minR = 11, maxR = 26): Circle[] {
  return comparisonRings(page, minR, maxR).sure;
}

/**
 * The comparison circles (`sure`, see findComparisonCircles), and the rings that would be ones
 * but for more ink just inside them than a thin ring has (`crowded`): a big sign
 * written up to the ring ("58○36" on hard synthetic pages, 11 of the 16 circles missed on 120
 * pages) — or a digit's stroke (7 such digits on the same pages); also the rings found only with
 * their centre moved (see below). Only the page's text can tell them apart: a crowded ring is a
 * circle where the recogniser read nothing between two numbers.
 */
export function comparisonRings(page: Mat, minR = 11, maxR = 26): { sure: Circle[]; crowded: Circle[] } {
  requireImage(page, 'comparisonRings');
  const gray = page.channels === 1 ? page : page.bgrToGray();
  const ink = pixelsOf(gray.adaptiveThreshold(255, cv.ADAPTIVE_THRESH_MEAN_C, cv.THRESH_BINARY_INV, 25, 7));
  const pen = page.channels === 3 ? { data: page.getData(), cols: page.cols } : undefined;
  const candidates = gray.gaussianBlur(new cv.Size(3, 3), 0).houghCircles(cv.HOUGH_GRADIENT, 1, 2 * minR, 100, 14, minR, maxR);
  const sure: Circle[] = [];
  const crowded: Circle[] = [];
  for (const v of candidates) {
    const fitted = onRing(ink, v, v.z);
    // A ring in the pen's blue is the child's 0 ("30" answering a problem), never a printed circle.
    if (pen && inPenBlue(ink, pen, fitted.c)) continue;
    const kind = ringKind(ink, fitted);
    if (kind === 'sure') sure.push(fitted.c);
    else if (kind === 'crowded') crowded.push(fitted.c);
    else {
      // A faint printed ring on a blurred page is found 2–3 pixels off its centre, where the
      // sample points fall beside it (4 of 9 comparisons lost on 40 hard synthetic pages). Moved
      // there, a digit's loop passes for a ring too (a 9's, a handwritten 0), so a ring found so
      // must be confirmed by a gap in the text, as a crowded one is.
      const moved = movedRing(ink, v, fitted);
      if (ringKind(ink, moved)) crowded.push(moved.c);
    }
  }
  // A page prints its circles at one size: a ring much smaller than the page's typical one is a
  // thin 0 or 6 of a digit (r 10–14 beside circles of 19–22 on synthetic easy pages; a printed 0
  // of r 15.2 beside 19.6 and 20.3 on easy page 12791, 0.78 of the median).
  const typical = sure.length >= 2 ? median(sure.map((c) => c.r)) : 0;
  return { sure: sure.filter((c) => c.r >= MIN_SHARE_OF_TYPICAL_R * typical), crowded: crowded.filter((c) => c.r >= CROWDED_SHARE_OF_TYPICAL_R * typical) };
}

/** Whether the ink on a circle is, on average, the pen's blue (see PEN_BLUE). */
function inPenBlue(ink: InkPixels, bgr: { data: Buffer; cols: number }, c: Circle): boolean {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const x = Math.round(c.x + c.r * (COS[i] as number));
    const y = Math.round(c.y + c.r * (SIN[i] as number));
    if (x < 0 || y < 0 || x >= ink.cols || y >= ink.rows || !ink.data[y * ink.cols + x]) continue;
    const at = (y * bgr.cols + x) * 3;
    sum += (bgr.data[at] as number) - (bgr.data[at + 2] as number);
    n++;
  }
  return n >= SAMPLES / 4 && sum / n >= PEN_BLUE;
}

/** Whether a fitted candidate is a thin ring (`sure`), a ring crowded by ink just inside it, or neither. */
function ringKind(ink: InkPixels, { c, ring }: { c: Circle; ring: number }): 'sure' | 'crowded' | undefined {
  const outside = inkFraction(ink, c, c.r * 1.45 + 2);
  if (ring < MIN_RING_INK || outside > MAX_OUTSIDE_INK) return undefined;
  // A thin ring: just inside and just outside it is (mostly) paper; a bold digit's stroke is not.
  const [justIn, justOut] = [inkFraction(ink, c, c.r * 0.75), inkFraction(ink, c, c.r * 1.25 + 1)];
  // A broken ring with ink both just inside and just outside it is a digit's stroke (a
  // handwritten 0) or a writing box; a blurred printed circle is broken on one side at most.
  if (ring < WHOLE_RING && justIn >= 0.2 && justOut >= 0.1) return undefined;
  if (Math.max(justIn, justOut) <= MAX_THIN_INK) return 'sure';
  return justIn <= MAX_CROWDED_INSIDE && justOut <= MAX_THIN_INK ? 'crowded' : undefined;
}

/** A crowded ring's sample points just inside it may be this share ink (the sign's strokes crossing them). */
const MAX_CROWDED_INSIDE = 0.45;
/** A crowded ring is at least this share of the page's median sure circle (the real ones measured 0.98–1.07). */
const CROWDED_SHARE_OF_TYPICAL_R = 0.9;

/** A circle smaller than this share of the page's median circle is a digit (the real ones measured 0.98–1.07). */
const MIN_SHARE_OF_TYPICAL_R = 0.85;

/**
 * Paints the comparison circles over with paper, leaving the sign written inside them: the
 * recogniser then reads "45 > 54", which the grader understands as a comparison.
 */
export function eraseComparisonCircles(page: Mat, circles: Circle[]): Mat {
  if (circles.length === 0) return page;
  const out = page.copy();
  const paper = new cv.Vec3(255, 255, 255);
  for (const c of circles) {
    const thickness = Math.max(3, Math.round(c.r * 0.3));
    out.drawCircle(new cv.Point2(c.x, c.y), Math.round(c.r), paper, thickness, cv.LINE_8);
  }
  return out;
}

/**
 * The sign a child wrote inside a comparison circle, from its shape: "=" is two bars one above
 * the other (two dark bands across it where blur has joined them); ">" has its point (its
 * rightmost ink) in the middle rows and its arms to the left, "<" the other way round; '' when
 * the circle is empty. Undefined when the shape says none of these clearly.
 */
export function readCircleSign(page: Mat, c: Circle): '>' | '<' | '=' | '' | undefined {
  const half = Math.round(c.r * 0.68);
  const x = Math.max(0, Math.round(c.x - half));
  const y = Math.max(0, Math.round(c.y - half));
  const w = Math.min(2 * half, page.cols - x);
  const h = Math.min(2 * half, page.rows - y);
  if (w < 6 || h < 6) return undefined;
  const gray = toGray(page.getRegion(new cv.Rect(x, y, w, h)));
  // Empty: nothing darker than the paper well inside the ring (a square of half a radius).
  const q = Math.round(c.r * 0.5);
  const inner = gray.getRegion(new cv.Rect(Math.max(0, half - q), Math.max(0, half - q), Math.min(2 * q, w - Math.max(0, half - q)), Math.min(2 * q, h - Math.max(0, half - q))));
  const { minVal, maxVal } = inner.minMaxLoc();
  if (maxVal - minVal < EMPTY_CONTRAST) return '';
  const ink = gray.threshold(0, 255, cv.THRESH_BINARY_INV | cv.THRESH_OTSU);
  // Only the disc inside the ring: the square's corners would reach the ring itself.
  const t = Math.round(c.r);
  ink.drawCircle(new cv.Point2(c.x - x, c.y - y), Math.round(c.r * 0.72) + Math.ceil(t / 2), new cv.Vec3(0, 0, 0), t);
  const parts = inkMarks(ink).filter((p) => p.area >= 4);
  const bars = parts.filter((p) => p.w >= 2 * p.h && p.w >= 0.3 * w);
  if (parts.length === 2 && bars.length === 2) return '=';
  const main = [...parts].sort((a, b) => b.area - a.area)[0];
  if (!main || main.h < 0.3 * h) return undefined;
  // Mean x of the ink in the top, middle and bottom thirds of the sign.
  const third = (k: number): number | undefined => {
    let sum = 0;
    let n = 0;
    for (let yy = main.y + Math.floor((k * main.h) / 3); yy < main.y + Math.floor(((k + 1) * main.h) / 3); yy++) {
      for (let xx = main.x; xx < main.x + main.w; xx++) {
        if (ink.at(yy, xx) > 0) {
          sum += xx;
          n++;
        }
      }
    }
    return n ? sum / n : undefined;
  };
  const [top, mid, bottom] = [third(0), third(1), third(2)];
  if (top === undefined || mid === undefined || bottom === undefined) return undefined;
  const lean = mid - (top + bottom) / 2;
  if (lean > 0.15 * main.w) return '>';
  if (lean < -0.15 * main.w) return '<';
  return twoBands(gray, main, maxVal) ? '=' : undefined;
}

/** Inside a circle whose darkest and lightest points are closer than this (grey levels), nothing is written. */
const EMPTY_CONTRAST = 40;

/**
 * Two dark bands across a blob, one above the other, with lighter paper between them: an "="
 * whose bars blur has joined at the usual threshold. Measured on the mean grey of each row.
 */
function twoBands(gray: Mat, blob: { x: number; y: number; w: number; h: number }, paper: number): boolean {
  const rows: number[] = [];
  for (let r = blob.y; r < blob.y + blob.h; r++) {
    let sum = 0;
    for (let q = blob.x; q < blob.x + blob.w; q++) sum += gray.at(r, q);
    rows.push(sum / blob.w);
  }
  // The darkest row, the darkest row at least 3 rows from it, and the lightest row between them.
  const first = rows.indexOf(Math.min(...rows));
  let second = -1;
  rows.forEach((v, r) => {
    if (Math.abs(r - first) >= 3 && (second < 0 || v < (rows[second] as number))) second = r;
  });
  if (second < 0) return false;
  const [lo, hi] = first < second ? [first, second] : [second, first];
  const between = Math.max(...rows.slice(lo + 1, hi));
  const darkest = rows[first] as number;
  return between - (rows[second] as number) >= BAND_GAP * (paper - darkest);
}

/** The paper between the two bars of an "=" is at least this much lighter than the lighter bar, as a share of the contrast. */
const BAND_GAP = 0.2;

/**
 * The sign in a circle from how its ink is spread, for when its shape cannot be read
 * (`readCircleSign` gives undefined: on a blurred photo a < or > is a blob). Inside the circle,
 * each pixel darker than the paper weighs by how much darker it is; a > has its ink high and low
 * on its open left side and together on the right, a < the other way round, an "=" evenly.
 * Measured as the weighted correlation between x and the distance from the ink's middle row, on
 * 66 circles of synthetic medium and hard pages: every > at −0.26 or less, every < at 0.14 or
 * more (all but one 0.26 or more), every = between −0.05 and 0.05 and about as wide as tall
 * (spread across / spread up and down 0.89–1.12; 0.68–0.85 for < and >). A slant short of 0.26
 * with ink as wide as an "=" is no guess.
 * A guess, not a reading: the caller takes it as less sure than a sign read from its shape.
 */
export function guessCircleSign(page: Mat, c: Circle): '>' | '<' | '=' | undefined {
  const R = 0.68 * c.r;
  const x0 = Math.round(c.x - R);
  const y0 = Math.round(c.y - R);
  const n = Math.round(2 * R);
  if (n < 6 || x0 < 0 || y0 < 0 || x0 + n > page.cols || y0 + n > page.rows) return undefined;
  const gray = toGray(page.getRegion(new cv.Rect(x0, y0, n, n)));
  const inside = (x: number, y: number): boolean => (x + 0.5 - n / 2) ** 2 + (y + 0.5 - n / 2) ** 2 <= (n / 2) ** 2;
  const values: number[] = [];
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if (inside(x, y)) values.push(gray.at(y, x));
  values.sort((a, b) => a - b);
  const darkest = values[0] as number;
  const paper = values[Math.floor(values.length * 0.9)] as number;
  if (paper - darkest < EMPTY_CONTRAST) return undefined;
  // Ink weights: how much darker than the paper, less a floor against noise and the ring's blur.
  const ink: [number, number, number][] = [];
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const w = inside(x, y) ? paper - gray.at(y, x) - 0.3 * (paper - darkest) : 0;
      if (w > 0) ink.push([x, y, w]);
    }
  }
  const total = ink.reduce((s, [, , w]) => s + w, 0);
  const mean = (f: (x: number, y: number) => number): number => ink.reduce((s, [x, y, w]) => s + w * f(x, y), 0) / total;
  const mx = mean((x) => x);
  const my = mean((_, y) => y);
  const spreadX = Math.sqrt(mean((x) => (x - mx) ** 2));
  const spreadY = Math.sqrt(mean((_, y) => (y - my) ** 2));
  const away = mean((_, y) => Math.abs(y - my));
  if (spreadX === 0 || spreadY === 0) return undefined;
  const corr = mean((x, y) => (x - mx) * (Math.abs(y - my) - away)) / (spreadX * spreadY);
  const wide = spreadX >= 0.85 * spreadY;
  // Short of every measured > and all but one < (|corr| < 0.26), ink as wide as an "=" may be
  // one: a blurred "=" on hard page 12639 measured −0.186, 0.91 as wide as tall.
  if (Math.abs(corr) >= 0.15 && (Math.abs(corr) >= SURE_SLANT || !wide)) return corr > 0 ? '<' : '>';
  return Math.abs(corr) <= 0.07 && wide ? '=' : undefined;
}

/** From this slant (see guessCircleSign) a < or > is guessed whatever the ink's width. */
const SURE_SLANT = 0.26;
