/**
 * "Photographs" a rendered sheet with OpenCV the way the lamp's camera sees it: the sheet lies
 * on a desk, turned and tilted (one exact homography), under uneven lamp light with a soft
 * shadow, then optical blur, sensor noise and JPEG compression.
 */
import { cv, type Mat } from '../../models/cv.js';
import type { Rng } from './rng.js';

export type Level = 'easy' | 'medium' | 'hard';
export const LEVELS: readonly Level[] = ['easy', 'medium', 'hard'];
export const PHOTO_W = 1280;
export const PHOTO_H = 960;

/**
 * The photo's size: PHOTO_W×PHOTO_H times `scale`. At a larger scale the same camera shake and
 * lens blur span as many more pixels (the scene is the same, seen by a sensor with more pixels),
 * and every random draw but the per-pixel noise is the same as at scale 1, so a page photographed
 * at two scales lies the same way on the same desk.
 */
export interface Frame { w: number; h: number; scale: number }
export const frameAt = (scale = 1): Frame => ({ w: Math.round(PHOTO_W * scale), h: Math.round(PHOTO_H * scale), scale });

type Span = [number, number];

export interface ShotParams {
  /** Largest rotation either way, degrees. */
  rotation: number;
  /** How much the far edge of the sheet shrinks (camera tilt), as a share of its length. */
  perspective: Span;
  /** The sheet's size as a share of the frame. */
  fill: Span;
  /** Overall exposure. */
  exposure: Span;
  /** Light falling off across the frame: 0 even, 0.5 one side half as bright. */
  gradient: Span;
  vignette: Span;
  /** Chance of a soft shadow (the child's arm, the lamp head) and how dark it is. */
  shadowChance: number;
  shadowDepth: Span;
  /** Gaussian blur sigma in photo pixels, and the chance of a short motion smear. */
  blur: Span;
  motionChance: number;
  /** Sensor noise sigma in grey levels. */
  noise: Span;
  jpegQuality: number;
  /** Chance of a pencil and an eraser lying on the desk (under the sheet when they overlap it). */
  clutterChance: number;
}

export const LEVEL_PARAMS: Record<Level, ShotParams> = {
  easy: {
    rotation: 3, perspective: [0, 0.02], fill: [0.86, 0.94], exposure: [1.0, 1.05], gradient: [0, 0.08], vignette: [0.03, 0.08],
    shadowChance: 0, shadowDepth: [0, 0], blur: [0.35, 0.55], motionChance: 0, noise: [1, 2], jpegQuality: 90, clutterChance: 0.3,
  },
  medium: {
    rotation: 8, perspective: [0.03, 0.07], fill: [0.8, 0.9], exposure: [0.92, 1.02], gradient: [0.15, 0.28], vignette: [0.08, 0.16],
    shadowChance: 0.4, shadowDepth: [0.18, 0.28], blur: [0.6, 0.85], motionChance: 0, noise: [3, 4.5], jpegQuality: 80, clutterChance: 0.5,
  },
  hard: {
    rotation: 15, perspective: [0.08, 0.14], fill: [0.78, 0.9], exposure: [0.82, 0.95], gradient: [0.3, 0.45], vignette: [0.15, 0.25],
    shadowChance: 1, shadowDepth: [0.35, 0.5], blur: [0.95, 1.2], motionChance: 0.5, noise: [5.5, 7.5], jpegQuality: 60, clutterChance: 0.7,
  },
};

export type Point = [number, number];
export type Homography = number[][];

export interface Photo {
  jpeg: Buffer;
  /** Sheet corners in the photo, clockwise from the sheet's top-left; absent when no sheet. */
  quad?: Point[];
  /** Maps sheet CSS pixels to photo pixels. */
  cssToPhoto?: Homography;
  quality: { mean_luma: number; laplacian_var: number };
}

export interface Sheet {
  /** The rendered sheet, BGR. */
  image: Mat;
  /** Sheet size in CSS pixels. */
  width: number;
  height: number;
}

const span = (rng: Rng, s: Span) => rng.range(s[0], s[1]);

function f32(buf: Buffer): Float32Array {
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

/** A rows×cols field of uniform noise in [-1, 1], smoothly stretched to the photo's size. */
function field(rng: Rng, f: Frame, rows: number, cols: number, interpolation = cv.INTER_CUBIC): Float32Array {
  const a = new Float32Array(rows * cols);
  for (let i = 0; i < a.length; i++) a[i] = rng.next() * 2 - 1;
  const small = new cv.Mat(Buffer.from(a.buffer), rows, cols, cv.CV_32F);
  return f32(small.resize(f.h, f.w, 0, 0, interpolation).getData());
}

/** A desk: light oak, walnut, or a dark laminate/slate top. BGR. */
export function desk(rng: Rng, f = frameAt()): Mat {
  const kind = rng.pick(['oak', 'walnut', 'dark', 'slate'] as const);
  const out = Buffer.alloc(f.w * f.h * 3);
  const low = field(rng, f, 6, 8);
  const wood = kind === 'oak' || kind === 'walnut';
  const fine = wood ? field(rng, f, PHOTO_H, 48) : field(rng, f, PHOTO_H / 2, PHOTO_W / 2, cv.INTER_LINEAR);
  const mid = wood ? field(rng, f, 90, 6) : field(rng, f, 30, 40);
  const base: [number, number, number] =
    kind === 'oak' ? [rng.range(95, 120), rng.range(150, 175), rng.range(195, 215)]
      : kind === 'walnut' ? [rng.range(40, 55), rng.range(68, 82), rng.range(100, 120)]
        : kind === 'dark' ? [rng.range(38, 48), rng.range(38, 46), rng.range(40, 48)]
          : [rng.range(55, 70), rng.range(55, 65), rng.range(48, 58)];
  const period = rng.range(45, 90) * f.scale;
  const phase = rng.range(0, Math.PI * 2);
  for (let y = 0, i = 0; y < f.h; y++) {
    for (let x = 0; x < f.w; x++, i++) {
      let v: number;
      if (wood) {
        const ring = Math.sin(((y + f.scale * 10 * Math.sin(x / f.scale / 400 + phase) + f.scale * 14 * (low[i] as number)) / period) * Math.PI * 2);
        v = 0.12 * (fine[i] as number) + 0.06 * (mid[i] as number) + 0.05 * ring + 0.05 * (low[i] as number);
      } else {
        v = 0.16 * (fine[i] as number) + 0.08 * (mid[i] as number) + 0.08 * (low[i] as number);
      }
      for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.max(0, Math.min(255, Math.round((base[c] as number) * (1 + v))));
    }
  }
  return new cv.Mat(out, f.h, f.w, cv.CV_8UC3);
}

function poly(m: Mat, pts: Point[], bgr: [number, number, number]): void {
  m.drawFillPoly([pts.map(([x, y]) => new cv.Point2(Math.round(x), Math.round(y)))], new cv.Vec3(...bgr), cv.LINE_AA);
}

/** A pencil and an eraser somewhere on the desk. */
function clutter(rng: Rng, m: Mat, f: Frame): void {
  const k = f.scale;
  const cx = rng.range(150, PHOTO_W - 150) * k;
  const cy = rng.range(120, PHOTO_H - 120) * k;
  const a = rng.range(0, Math.PI);
  const len = rng.range(280, 420) * k;
  const w = rng.range(7, 10) * k;
  const [ux, uy] = [Math.cos(a), Math.sin(a)];
  const [nx, ny] = [-uy, ux];
  const at = (t: number, n: number): Point => [cx + ux * t + nx * n, cy + uy * t + ny * n];
  const body = rng.pick<[number, number, number]>([[40, 190, 235], [60, 140, 60], [50, 50, 190], [170, 90, 40]]);
  poly(m, [at(-len / 2, -w), at(len / 2 - 40 * k, -w), at(len / 2 - 40 * k, w), at(-len / 2, w)], body);
  poly(m, [at(len / 2 - 40 * k, -w), at(len / 2, 0), at(len / 2 - 40 * k, w)], [130, 185, 225]);
  poly(m, [at(len / 2 - 12 * k, -w * 0.3), at(len / 2, 0), at(len / 2 - 12 * k, w * 0.3)], [40, 40, 45]);
  poly(m, [at(-len / 2 - 18 * k, -w), at(-len / 2, -w), at(-len / 2, w), at(-len / 2 - 18 * k, w)], [170, 170, 175]);
  const ex = rng.range(120, PHOTO_W - 120) * k;
  const ey = rng.range(100, PHOTO_H - 100) * k;
  const b = rng.range(0, Math.PI);
  const [vx, vy] = [Math.cos(b), Math.sin(b)];
  const e = (t: number, n: number): Point => [ex + vx * t - vy * n, ey + vy * t + vx * n];
  poly(m, [e(-38 * k, -18 * k), e(38 * k, -18 * k), e(38 * k, 18 * k), e(-38 * k, 18 * k)], rng.pick<[number, number, number]>([[235, 238, 240], [190, 170, 245], [230, 190, 120]]));
}

/** Where the sheet's corners land: scaled, tilted, turned and placed, always wholly in the frame. */
function placeSheet(rng: Rng, p: ShotParams, width: number, height: number, f: Frame): Point[] {
  let scale = span(rng, p.fill) * Math.min(f.w / width, f.h / height);
  const theta = (rng.range(-p.rotation, p.rotation) * Math.PI) / 180;
  const k = span(rng, p.perspective);
  const side = rng.int(0, 3);
  const jitter = Array.from({ length: 8 }, () => rng.range(-1, 1) * k * 0.25);
  const ox = rng.range(-0.04, 0.04) * f.w;
  const oy = rng.range(-0.04, 0.04) * f.h;
  for (;;) {
    const w = width * scale;
    const h = height * scale;
    const c: Point[] = [[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]];
    // the edge farther from the camera is shorter and a little closer to the middle
    const far = [[0, 1], [1, 2], [2, 3], [3, 0]][side] as [number, number];
    for (const j of far) {
      const q = c[j] as Point;
      if (side % 2 === 0) { q[0] *= 1 - k; q[1] *= 1 - k * 0.3; } else { q[1] *= 1 - k; q[0] *= 1 - k * 0.3; }
    }
    const placed = c.map(([x, y], j): Point => {
      const xj = x + (jitter[j * 2] as number) * w;
      const yj = y + (jitter[j * 2 + 1] as number) * h;
      return [f.w / 2 + ox + xj * Math.cos(theta) - yj * Math.sin(theta), f.h / 2 + oy + xj * Math.sin(theta) + yj * Math.cos(theta)];
    });
    const m = 10 * f.scale;
    if (placed.every(([x, y]) => x >= m && x <= f.w - m && y >= m && y <= f.h - m)) return placed;
    scale *= 0.97;
  }
}

function matrix(m: Mat): Homography {
  return m.getDataAsArray() as number[][];
}

export function project(h: Homography, [x, y]: Point): Point {
  const r = h as [number[], number[], number[]];
  const w = (r[2][0] as number) * x + (r[2][1] as number) * y + (r[2][2] as number);
  return [((r[0][0] as number) * x + (r[0][1] as number) * y + (r[0][2] as number)) / w, ((r[1][0] as number) * x + (r[1][1] as number) * y + (r[1][2] as number)) / w];
}

/** The axis-aligned box, in whole photo pixels, around a sheet rectangle's four projected corners. */
export function mapRect(h: Homography, [x, y, w, hh]: [number, number, number, number], f = frameAt()): [number, number, number, number] {
  const pts = [project(h, [x, y]), project(h, [x + w, y]), project(h, [x + w, y + hh]), project(h, [x, y + hh])];
  const x0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[0]))));
  const y0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[1]))));
  const x1 = Math.min(f.w, Math.ceil(Math.max(...pts.map((p) => p[0]))));
  const y1 = Math.min(f.h, Math.ceil(Math.max(...pts.map((p) => p[1]))));
  return [x0, y0, x1 - x0, y1 - y0];
}

/** A soft shadow blob (an arm or the lamp head) reaching in from one edge, 0..1 per pixel. */
function shadowBlob(rng: Rng, f: Frame): Float32Array {
  const small = new cv.Mat(PHOTO_H / 4, PHOTO_W / 4, cv.CV_8UC1, 0);
  const edge = rng.int(0, 3);
  const cx = edge === 0 ? -10 : edge === 1 ? PHOTO_W / 4 + 10 : rng.range(0.2, 0.8) * (PHOTO_W / 4);
  const cy = edge === 2 ? -10 : edge === 3 ? PHOTO_H / 4 + 10 : rng.range(0.2, 0.8) * (PHOTO_H / 4);
  small.drawEllipse(new cv.Point2(cx, cy), new cv.Size(rng.range(60, 120), rng.range(35, 70)), rng.range(0, 180), 0, 360, new cv.Vec3(255, 255, 255), -1, cv.LINE_AA);
  const soft = small.gaussianBlur(new cv.Size(0, 0), rng.range(8, 14)).convertTo(cv.CV_32F, 1 / 255);
  return f32(soft.resize(f.h, f.w, 0, 0, cv.INTER_LINEAR).getData());
}

export function measure(img: Mat): Photo['quality'] {
  const grey = img.channels === 1 ? img : img.bgrToGray();
  const mean = grey.meanStdDev().mean.at(0, 0);
  const sd = grey.laplacian(cv.CV_64F).meanStdDev().stddev.at(0, 0);
  return { mean_luma: Math.round(mean * 10) / 10, laplacian_var: Math.round(sd * sd * 10) / 10 };
}

/**
 * Photographs `sheet` (or the bare desk when null) with the given parameters, in a frame of
 * PHOTO_W×PHOTO_H times `scale` (see Frame). Returns the JPEG and the homography from sheet CSS
 * pixels to photo pixels.
 */
export function photograph(rng: Rng, sheet: Sheet | null, p: ShotParams, scale = 1): Photo {
  const f = frameAt(scale);
  const bg = desk(rng, f);
  if (rng.chance(sheet ? p.clutterChance : 1)) clutter(rng, bg, f);
  let quad: Point[] | undefined;
  let cssToPhoto: Homography | undefined;
  let pageBuf: Buffer | null = null;
  let alpha: Buffer | null = null;
  let drop: Buffer | null = null;
  const size = new cv.Size(f.w, f.h);
  if (sheet) {
    quad = placeSheet(rng, p, sheet.width, sheet.height, f);
    // bring the sheet close to its size in the photo first, so the warp does not alias thin strokes
    const across = Math.hypot((quad[1] as Point)[0] - (quad[0] as Point)[0], (quad[1] as Point)[1] - (quad[0] as Point)[1]);
    const s = Math.min(1, (across * 1.15) / sheet.image.cols);
    const flat = s < 1 ? sheet.image.resize(Math.round(sheet.image.rows * s), Math.round(sheet.image.cols * s), 0, 0, cv.INTER_AREA) : sheet.image;
    const src = [new cv.Point2(0, 0), new cv.Point2(flat.cols, 0), new cv.Point2(flat.cols, flat.rows), new cv.Point2(0, flat.rows)];
    const dst = quad.map(([x, y]) => new cv.Point2(x, y));
    const h = cv.getPerspectiveTransform(src, dst);
    const cssSrc = [new cv.Point2(0, 0), new cv.Point2(sheet.width, 0), new cv.Point2(sheet.width, sheet.height), new cv.Point2(0, sheet.height)];
    cssToPhoto = matrix(cv.getPerspectiveTransform(cssSrc, dst));
    pageBuf = flat.warpPerspective(h, size, cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Vec3(0, 0, 0)).getData();
    const ones = new cv.Mat(flat.rows, flat.cols, cv.CV_8UC1, 255);
    const mask = ones.warpPerspective(h, size, cv.INTER_LINEAR, cv.BORDER_CONSTANT);
    alpha = mask.getData();
    const sx = rng.range(-6, 6) * scale;
    const sy = rng.range(3, 9) * scale;
    const shifted = ones.warpPerspective(cv.getPerspectiveTransform(src, quad.map(([x, y]) => new cv.Point2(x + sx, y + sy))), size, cv.INTER_LINEAR, cv.BORDER_CONSTANT);
    drop = shifted.gaussianBlur(new cv.Size(0, 0), rng.range(5, 9) * scale).getData();
  }

  const exposure = span(rng, p.exposure);
  const grad = span(rng, p.gradient);
  const dir = rng.range(0, Math.PI * 2);
  const [dx, dy] = [Math.cos(dir), Math.sin(dir)];
  const vig = span(rng, p.vignette);
  const blob = rng.chance(p.shadowChance) ? shadowBlob(rng, f) : null;
  const depth = span(rng, p.shadowDepth);
  const warm = rng.range(0, 0.06); // warm lamp light: a little less blue, a little more red
  const tint = [1 - warm, 1, 1 + warm * 0.4];
  const bgBuf = bg.getData();
  const out = Buffer.alloc(f.w * f.h * 3);
  const half = Math.hypot(f.w, f.h) / 2;
  for (let y = 0, i = 0; y < f.h; y++) {
    for (let x = 0; x < f.w; x++, i++) {
      const px = x - f.w / 2;
      const py = y - f.h / 2;
      const along = (px * dx + py * dy) / half;
      const r2 = (px * px + py * py) / (half * half);
      let g = exposure * (1 - grad * (0.5 + 0.5 * along)) * (1 - vig * r2);
      if (blob) g *= 1 - depth * (blob[i] as number);
      const a = alpha ? (alpha[i] as number) / 255 : 0;
      const sh = drop ? ((drop[i] as number) / 255) * (1 - a) * 0.45 : 0;
      for (let c = 0; c < 3; c++) {
        const j = i * 3 + c;
        const desk = (bgBuf[j] as number) * (1 - sh);
        const v = pageBuf ? desk * (1 - a) + (pageBuf[j] as number) * a : desk;
        out[j] = Math.max(0, Math.min(255, Math.round(v * g * (tint[c] as number))));
      }
    }
  }
  let img = new cv.Mat(out, f.h, f.w, cv.CV_8UC3).gaussianBlur(new cv.Size(0, 0), span(rng, p.blur) * scale);
  if (rng.chance(p.motionChance)) {
    const len = Math.round(rng.int(3, 4) * scale);
    const horizontal = rng.chance(0.5);
    const kernel = new cv.Mat(horizontal ? 1 : len, horizontal ? len : 1, cv.CV_32F, 1 / len);
    img = img.filter2D(-1, kernel);
  }
  const sigma = span(rng, p.noise);
  const buf = img.getData();
  // luma noise from both Box–Muller outputs, a little chroma noise from a cheap near-normal sum
  // the last random draws: their number grows with the frame, the ones before do not
  for (let i = 0; i < f.w * f.h; i += 2) {
    const u = Math.max(rng.next(), 1e-12);
    const rad = Math.sqrt(-2 * Math.log(u)) * sigma;
    const ang = 2 * Math.PI * rng.next();
    const ls = [rad * Math.cos(ang), rad * Math.sin(ang)];
    for (let k = 0; k < 2; k++) {
      const l = ls[k] as number;
      for (let c = 0; c < 3; c++) {
        const j = (i + k) * 3 + c;
        const chroma = (rng.next() + rng.next() - 1) * sigma * 0.6;
        buf[j] = Math.max(0, Math.min(255, Math.round((buf[j] as number) + l + chroma)));
      }
    }
  }
  const noisy = new cv.Mat(buf, f.h, f.w, cv.CV_8UC3);
  const jpeg = cv.imencode('.jpg', noisy, [cv.IMWRITE_JPEG_QUALITY, p.jpegQuality]);
  const quality = measure(cv.imdecode(jpeg));
  return { jpeg, ...(quad ? { quad } : {}), ...(cssToPhoto ? { cssToPhoto } : {}), quality };
}
