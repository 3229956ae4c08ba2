import { cv, type Mat } from '../cv.js';
import { ErrorCode, LampError } from '../../runtime/errors.js';

/**
 * The smallest picture the page pipeline accepts. Below this a camera frame cannot hold a
 * readable page, and some OpenCV calls abort the process (not throw) on degenerate sizes.
 */
export const MIN_IMAGE_SIDE = 64;

/** Rejects what no step can work on: not a Mat, empty, tiny, or not 8-bit. */
export function requireImage(img: unknown, step: string): asserts img is Mat {
  if (!(img instanceof cv.Mat)) {
    throw new LampError(ErrorCode.INPUT_REJECTED, `${step}: expected an image`, { step });
  }
  if (img.empty || img.rows < MIN_IMAGE_SIDE || img.cols < MIN_IMAGE_SIDE) {
    throw new LampError(ErrorCode.INPUT_REJECTED, `${step}: image is ${img.cols}×${img.rows}, smaller than ${MIN_IMAGE_SIDE}×${MIN_IMAGE_SIDE}`, {
      step,
      width: img.cols,
      height: img.rows,
    });
  }
  if (img.depth !== cv.CV_8U || ![1, 3, 4].includes(img.channels)) {
    throw new LampError(ErrorCode.INPUT_REJECTED, `${step}: expected an 8-bit grey, BGR or BGRA image`, { step, type: img.type });
  }
}

/** The image as 3-channel BGR (grey and BGRA frames are converted, BGR is returned as is). */
export function toBgr(img: Mat): Mat {
  if (img.channels === 3) return img;
  return img.cvtColor(img.channels === 1 ? cv.COLOR_GRAY2BGR : cv.COLOR_BGRA2BGR);
}

/** The image as one grey channel. */
export function toGray(img: Mat): Mat {
  if (img.channels === 1) return img;
  return img.cvtColor(img.channels === 4 ? cv.COLOR_BGRA2GRAY : cv.COLOR_BGR2GRAY);
}

/**
 * Blue minus red (grey levels) from which dark ink is the pen's: on the flattened page print
 * measures −15 to +3, a blue pen +23 to +73 (hard synthetic pages, shadowed and JPEG'd).
 */
export const PEN_BLUE = 20;

/** One connected mark of ink in a 0/255 mask: its bounding box and its area in pixels. */
export interface InkMark { x: number; y: number; w: number; h: number; area: number }

/** The marks of a 0/255 ink mask (its connected components, the background left out). */
export function inkMarks(mask: Mat): InkMark[] {
  const { stats } = mask.connectedComponentsWithStats() as unknown as { stats: Mat };
  const marks: InkMark[] = [];
  for (let i = 1; i < stats.rows; i++) marks.push({ x: stats.at(i, 0), y: stats.at(i, 1), w: stats.at(i, 2), h: stats.at(i, 3), area: stats.at(i, 4) });
  return marks;
}

/** The box around some marks; undefined when there are none. */
export function markBounds(marks: InkMark[]): { x: number; y: number; w: number; h: number } | undefined {
  if (marks.length === 0) return undefined;
  const x = Math.min(...marks.map((m) => m.x));
  const y = Math.min(...marks.map((m) => m.y));
  return { x, y, w: Math.max(...marks.map((m) => m.x + m.w)) - x, h: Math.max(...marks.map((m) => m.y + m.h)) - y };
}

/** The middle value (the upper one of an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Milliseconds since `start` (from performance.now()), rounded to 0.1 ms. */
export function since(start: number): number {
  return Math.round((performance.now() - start) * 10) / 10;
}
