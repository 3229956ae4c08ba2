import { cv, type Mat } from '../cv.js';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import { MIN_IMAGE_SIDE } from './image.js';

/** Camera frames larger than this are not photos of a page from the lamp (guards memory). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

function checkBuffer(buf: unknown): asserts buf is Buffer {
  if (!Buffer.isBuffer(buf)) throw new LampError(ErrorCode.INPUT_REJECTED, 'page photo is not a byte buffer', {});
  // OpenCV's imdecode aborts the whole process on an empty buffer instead of throwing.
  if (buf.length === 0) throw new LampError(ErrorCode.INPUT_REJECTED, 'page photo is empty', { bytes: 0 });
  if (buf.length > MAX_IMAGE_BYTES) throw new LampError(ErrorCode.INPUT_REJECTED, 'page photo is too large', { bytes: buf.length });
}

function checkDecoded(img: Mat, bytes: number): Mat {
  if (img.empty) throw new LampError(ErrorCode.INPUT_REJECTED, 'page photo is not a JPEG or PNG image', { bytes });
  if (img.rows < MIN_IMAGE_SIDE || img.cols < MIN_IMAGE_SIDE) {
    throw new LampError(ErrorCode.INPUT_REJECTED, `page photo is ${img.cols}×${img.rows}, too small to hold a page`, {
      bytes,
      width: img.cols,
      height: img.rows,
    });
  }
  return img;
}

/** Decodes a JPEG or PNG photo to BGR. Throws INPUT_REJECTED on anything else. */
export function decodeImage(buf: Buffer): Mat {
  checkBuffer(buf);
  return checkDecoded(cv.imdecode(buf, cv.IMREAD_COLOR), buf.length);
}
