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

/** Milliseconds since `start` (from performance.now()), rounded to 0.1 ms. */
export function since(start: number): number {
  return Math.round((performance.now() - start) * 10) / 10;
}
