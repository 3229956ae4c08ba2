import { cv, type Mat } from '../cv.js';

export interface Norm { mean: readonly [number, number, number]; std: readonly [number, number, number] }

/** Detection: ImageNet statistics, applied to the BGR channels in order, as the model was trained. */
export const DET_NORM: Norm = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
/** Recognition and angle classification: (x/255 − 0.5) / 0.5. */
export const REC_NORM: Norm = { mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] };

/**
 * Writes a CV_8UC3 image, normalised, into planar (CHW) float data: at `offset`, into planes
 * `planeW` wide and `planeH` tall, in the top-left corner. What the image does not cover keeps the
 * value it had (0 after normalisation is mid-grey, what the recogniser was trained with as padding).
 */
export function writeChw(img: Mat, out: Float32Array, offset: number, planeW: number, planeH: number, norm: Norm): void {
  const { rows, cols } = img;
  const data = img.getData();
  const step = data.length / rows;
  const plane = planeW * planeH;
  for (let c = 0; c < 3; c++) {
    const scale = 1 / (255 * (norm.std[c] as number));
    const shift = (norm.mean[c] as number) / (norm.std[c] as number);
    const base = offset + c * plane;
    for (let y = 0; y < rows; y++) {
      const row = y * step;
      const o = base + y * planeW;
      for (let x = 0; x < cols; x++) out[o + x] = (data[row + x * 3 + c] as number) * scale - shift;
    }
  }
}

/** Any 1-, 3- or 4-channel 8-bit image as BGR; anything else is not an image we can read. */
export function asBgr(img: Mat): Mat | undefined {
  if (img.empty || img.rows < 1 || img.cols < 1) return undefined;
  if (img.type === cv.CV_8UC3) return img;
  if (img.type === cv.CV_8UC1) return img.cvtColor(cv.COLOR_GRAY2BGR);
  if (img.type === cv.CV_8UC4) return img.cvtColor(cv.COLOR_BGRA2BGR);
  return undefined;
}
