import { cv, type Mat } from '../cv.js';
import type { Point, Quad } from './types.js';

/**
 * Synthetic photos of a homework page under the lamp, for the page pipeline's tests: a flat
 * worksheet with printed arithmetic in black and some answers in blue, placed on a desk with a
 * known rotation and perspective, then lit unevenly, blurred, noised and JPEG-compressed. Because
 * the placement is known, tests can compare what the pipeline recovers with the truth.
 */

export type Desk = 'wood' | 'dark' | 'pattern' | 'light';

export interface PageLayout {
  /** Flat page size in pixels (before it is placed in the photo). */
  width: number;
  height: number;
  rows: number;
  cols: number;
  /** Print a title line above the problems. */
  title: boolean;
  /** Draw faint horizontal rules under each row, as exercise books have. */
  ruled: boolean;
  /** Every n-th problem gets a blue answer (0: none). */
  answerEvery: number;
  /** Rotation of the content on the flat page, degrees (counter-clockwise positive). */
  contentAngleDeg: number;
}

export interface PhotoOptions {
  frameWidth: number;
  frameHeight: number;
  desk: Desk;
  /** Fraction of the frame the page covers. */
  areaRatio: number;
  /** Page rotation in the photo, degrees (counter-clockwise positive, as on the screen). */
  rotationDeg: number;
  /** Perspective: the far (top) edge is this much narrower than the near one (0 = none). */
  keystone: number;
  /** Page centre as a fraction of the frame. */
  centre: [number, number];
  /** Overall exposure multiplier. */
  exposure: number;
  /** Reflected light added to every pixel (glare washing the photo out), 0–255. */
  glare: number;
  /** Light falls off to this factor at the far side of the frame (1 = even light). */
  falloff: number;
  /** A soft shadow (an arm, the lamp head) over the frame's top-right quarter: the light left under it, 1 = none. */
  shadow: number;
  blurSigma: number;
  noiseSigma: number;
  /** JPEG quality, or 0 to keep the raw image. */
  jpegQuality: number;
  seed: number;
}

export interface SyntheticPhoto {
  /** The photo as the camera driver would deliver it (JPEG unless jpegQuality is 0). */
  buffer: Buffer;
  /** The same photo, decoded. */
  image: Mat;
  /** The flat page before it was placed. */
  flat: Mat;
  /** Where the flat page's corners landed in the photo, TL, TR, BR, BL. */
  quad: Quad;
  /** Maps a flat-page point to the photo. */
  toPhoto: (x: number, y: number) => Point;
  /** Bounding boxes of each problem (text plus answer) on the flat page, row by row. */
  problems: { x: number; y: number; w: number; h: number }[];
  layout: PageLayout;
}

export const DEFAULT_LAYOUT: PageLayout = {
  width: 1200,
  height: 900,
  rows: 6,
  cols: 3,
  title: false,
  ruled: false,
  answerEvery: 2,
  contentAngleDeg: 0,
};

export const DEFAULT_PHOTO: PhotoOptions = {
  frameWidth: 1280,
  frameHeight: 960,
  desk: 'wood',
  areaRatio: 0.7,
  rotationDeg: 0,
  keystone: 0,
  centre: [0.5, 0.5],
  exposure: 1,
  falloff: 1,
  shadow: 1,
  glare: 0,
  blurSigma: 0,
  noiseSigma: 0,
  jpegQuality: 90,
  seed: 1,
};

/** A small deterministic generator, so a failing test fails the same way every time. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PAPER = new cv.Vec3(222, 238, 246); // cream, BGR
const PRINT = new cv.Vec3(30, 30, 30);
const BLUE_INK = new cv.Vec3(170, 70, 30); // ballpoint blue, BGR

/** Draws the flat worksheet. */
export function makeFlatPage(layout: Partial<PageLayout> = {}, seed = 1): { flat: Mat; problems: SyntheticPhoto['problems']; layout: PageLayout } {
  const l = { ...DEFAULT_LAYOUT, ...layout };
  const rand = rng(seed);
  const page = new cv.Mat(l.height, l.width, cv.CV_8UC3, [PAPER.x, PAPER.y, PAPER.z]);
  const marginX = Math.round(l.width * 0.07);
  const top = Math.round(l.height * (l.title ? 0.2 : 0.1));
  const bottom = Math.round(l.height * 0.06);
  const pitch = (l.height - top - bottom) / l.rows;
  const colW = (l.width - 2 * marginX) / l.cols;
  const scale = Math.min(1.1, pitch / 55, colW / 340);
  const problems: SyntheticPhoto['problems'] = [];
  if (l.title) {
    page.putText('Math 3-2   Name ____', new cv.Point2(marginX, Math.round(l.height * 0.1)), cv.FONT_HERSHEY_DUPLEX, scale * 1.1, PRINT, 2, cv.LINE_AA);
  }
  let n = 0;
  for (let r = 0; r < l.rows; r++) {
    const baseline = Math.round(top + r * pitch + pitch * 0.62);
    if (l.ruled) {
      page.drawLine(new cv.Point2(marginX / 2, baseline + 12), new cv.Point2(l.width - marginX / 2, baseline + 12), new cv.Vec3(190, 200, 205), 1);
    }
    for (let c = 0; c < l.cols; c++) {
      const a = 10 + Math.floor(rand() * 89);
      const b = 1 + Math.floor(rand() * 9);
      const op = rand() < 0.5 ? '+' : '-';
      const text = `${a} ${op} ${b} =`;
      const x = Math.round(marginX + c * colW);
      const size = cv.getTextSize(text, cv.FONT_HERSHEY_SIMPLEX, scale, 2).size;
      page.putText(text, new cv.Point2(x, baseline), cv.FONT_HERSHEY_SIMPLEX, scale, PRINT, 2, cv.LINE_AA);
      let w = size.width;
      n++;
      if (l.answerEvery > 0 && n % l.answerEvery === 0) {
        const answer = String(op === '+' ? a + b : a - b);
        const ax = x + size.width + Math.round(scale * 14);
        const asz = cv.getTextSize(answer, cv.FONT_HERSHEY_SCRIPT_SIMPLEX, scale * 1.1, 2).size;
        page.putText(answer, new cv.Point2(ax, baseline), cv.FONT_HERSHEY_SCRIPT_SIMPLEX, scale * 1.1, BLUE_INK, 2, cv.LINE_AA);
        w = ax + asz.width - x;
      }
      problems.push({ x, y: baseline - size.height, w, h: size.height });
    }
  }
  if (l.contentAngleDeg !== 0) {
    const m = cv.getRotationMatrix2D(new cv.Point2(l.width / 2, l.height / 2), l.contentAngleDeg, 1);
    const rotated = page.warpAffine(m, new cv.Size(l.width, l.height), cv.INTER_LINEAR, cv.BORDER_CONSTANT, PAPER);
    return { flat: rotated, problems, layout: l };
  }
  return { flat: page, problems, layout: l };
}

/** A desk surface filling the whole frame. */
export function makeDesk(desk: Desk, width: number, height: number, seed = 1): Mat {
  const rand = rng(seed);
  if (desk === 'dark') return addNoise(new cv.Mat(height, width, cv.CV_8UC3, [38, 36, 40]), 6, seed);
  if (desk === 'light') return addNoise(new cv.Mat(height, width, cv.CV_8UC3, [150, 165, 175]), 5, seed);
  if (desk === 'wood') {
    const img = new cv.Mat(height, width, cv.CV_8UC3, [55, 95, 145]);
    for (let i = 0; i < 160; i++) {
      const y = rand() * height;
      const shade = 25 * (rand() - 0.5);
      const wobble = 10 * rand();
      const pts: InstanceType<typeof cv.Point2>[] = [];
      for (let x = 0; x <= width; x += 64) pts.push(new cv.Point2(x, y + wobble * Math.sin(x / (80 + 60 * rand()))));
      img.drawPolylines([pts], false, new cv.Vec3(55 + shade, 95 + shade, 145 + shade), 1 + Math.floor(rand() * 3));
    }
    return addNoise(img.gaussianBlur(new cv.Size(5, 5), 1.5), 5, seed);
  }
  // A tablecloth with coloured dots and stripes.
  const img = new cv.Mat(height, width, cv.CV_8UC3, [120, 70, 60]);
  for (let x = 0; x < width; x += 80) img.drawRectangle(new cv.Point2(x, 0), new cv.Point2(x + 30, height), new cv.Vec3(90, 140, 200), cv.FILLED);
  for (let i = 0; i < 60; i++) {
    img.drawCircle(new cv.Point2(rand() * width, rand() * height), 8 + rand() * 20, new cv.Vec3(rand() * 255, rand() * 255, rand() * 255), cv.FILLED);
  }
  return addNoise(img, 5, seed);
}

/** Adds Gaussian-ish noise of the given sigma (sum of uniforms, deterministic). */
export function addNoise(img: Mat, sigma: number, seed = 1): Mat {
  if (sigma <= 0) return img;
  const rand = rng(seed * 7919 + 17);
  const data = Buffer.alloc(img.rows * img.cols * img.channels);
  const k = sigma * Math.sqrt(12 / 4);
  for (let i = 0; i < data.length; i++) {
    const g = (rand() + rand() + rand() + rand() - 2) * k;
    data[i] = Math.max(0, Math.min(255, Math.round(128 + g)));
  }
  const noise = new cv.Mat(data, img.rows, img.cols, img.type);
  return img.addWeighted(1, noise, 1, -128);
}

/** Where a page of the given aspect lands in the frame, TL, TR, BR, BL. */
export function placeQuad(pageW: number, pageH: number, o: PhotoOptions): Quad {
  const frameArea = o.frameWidth * o.frameHeight;
  const s = Math.sqrt((o.areaRatio * frameArea) / (pageW * pageH));
  const w = pageW * s;
  const h = pageH * s;
  const k = o.keystone / 2;
  const local: Point[] = [
    [-w / 2 * (1 - k), -h / 2],
    [w / 2 * (1 - k), -h / 2],
    [w / 2 * (1 + k), h / 2],
    [-w / 2 * (1 + k), h / 2],
  ];
  const a = (-o.rotationDeg * Math.PI) / 180; // screen y points down
  const cx = o.centre[0] * o.frameWidth;
  const cy = o.centre[1] * o.frameHeight;
  const q = local.map(([x, y]): Point => [cx + x * Math.cos(a) - y * Math.sin(a), cy + x * Math.sin(a) + y * Math.cos(a)]);
  return [q[0]!, q[1]!, q[2]!, q[3]!];
}

/** A photo of a worksheet on a desk. */
export function makePhoto(photo: Partial<PhotoOptions> = {}, layout: Partial<PageLayout> = {}): SyntheticPhoto {
  const o = { ...DEFAULT_PHOTO, ...photo };
  const { flat, problems, layout: l } = makeFlatPage(layout, o.seed);
  const quad = placeQuad(l.width, l.height, o);
  const src = [
    new cv.Point2(0, 0),
    new cv.Point2(l.width, 0),
    new cv.Point2(l.width, l.height),
    new cv.Point2(0, l.height),
  ];
  const dst = quad.map(([x, y]) => new cv.Point2(x, y));
  const m = cv.getPerspectiveTransform(src, dst);
  const size = new cv.Size(o.frameWidth, o.frameHeight);
  const warped = flat.warpPerspective(m, size, cv.INTER_AREA, cv.BORDER_CONSTANT, new cv.Vec3(0, 0, 0));
  const mask = new cv.Mat(l.height, l.width, cv.CV_8UC1, 255).warpPerspective(m, size, cv.INTER_NEAREST, cv.BORDER_CONSTANT, new cv.Vec3(0, 0, 0));
  const img = makeDesk(o.desk, o.frameWidth, o.frameHeight, o.seed);
  warped.copyTo(img, mask);
  let lit = applyShadow(applyLight(img, o.exposure, o.falloff), o.shadow);
  if (o.glare > 0) lit = lit.add(new cv.Mat(lit.rows, lit.cols, cv.CV_8UC3, [o.glare, o.glare, o.glare]));
  if (o.blurSigma > 0) lit = lit.gaussianBlur(new cv.Size(0, 0), o.blurSigma);
  lit = addNoise(lit, o.noiseSigma, o.seed);
  const h = m.getDataAsArray() as number[][];
  const toPhoto = (x: number, y: number): Point => {
    const w = h[2]![0]! * x + h[2]![1]! * y + h[2]![2]!;
    return [(h[0]![0]! * x + h[0]![1]! * y + h[0]![2]!) / w, (h[1]![0]! * x + h[1]![1]! * y + h[1]![2]!) / w];
  };
  const buffer = o.jpegQuality > 0 ? cv.imencode('.jpg', lit, [cv.IMWRITE_JPEG_QUALITY, o.jpegQuality]) : cv.imencode('.png', lit);
  const image = cv.imdecode(buffer);
  return { buffer, image, flat, quad, toPhoto, problems, layout: l };
}

/** Exposure times a linear fall-off from the left edge (full light) to the right edge. */
export function applyLight(img: Mat, exposure: number, falloff: number): Mat {
  if (exposure === 1 && falloff === 1) return img;
  const cols = 64;
  const row: number[] = [];
  for (let i = 0; i < cols; i++) row.push(exposure * (1 - (1 - falloff) * (i / (cols - 1))));
  const gain = new cv.Mat([row], cv.CV_32F).resize(img.rows, img.cols, 0, 0, cv.INTER_LINEAR);
  const gain3 = new cv.Mat([gain, gain, gain]);
  return img.convertTo(cv.CV_32FC3).hMul(gain3).convertTo(cv.CV_8UC3);
}

/** Darkens a soft-edged disc over the frame's top-right corner to `light` of its brightness. */
export function applyShadow(img: Mat, light: number): Mat {
  if (light === 1) return img;
  const disc = new cv.Mat(img.rows, img.cols, cv.CV_32F, 0);
  disc.drawCircle(new cv.Point2(img.cols, 0), Math.round(0.55 * img.cols), new cv.Vec3(1, 1, 1), cv.FILLED);
  const soft = disc.gaussianBlur(new cv.Size(0, 0), 0.04 * img.cols);
  const gain = soft.convertTo(cv.CV_32F, light - 1, 1);
  return img.convertTo(cv.CV_32FC3).hMul(new cv.Mat([gain, gain, gain])).convertTo(cv.CV_8UC3);
}

/** Maximum distance between matching corners, as a fraction of the quad's diagonal. */
export function cornerError(found: Quad, truth: Quad): number {
  const diag = Math.hypot(truth[2][0] - truth[0][0], truth[2][1] - truth[0][1]);
  let worst = 0;
  for (let i = 0; i < 4; i++) worst = Math.max(worst, Math.hypot(found[i]![0] - truth[i]![0], found[i]![1] - truth[i]![1]));
  return worst / diag;
}
