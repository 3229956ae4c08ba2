import * as ort from 'onnxruntime-node';
import { cv, type Mat } from '../cv.js';
import { ctcDecode, type DecodedLine } from './ctc.js';
import { REC_NORM, writeChw } from './tensor.js';

export const REC_HEIGHT = 48;

export interface RecOptions {
  batchSize: number;
  /** Narrowest input the recogniser gets; a batch is padded to its widest crop or this. */
  minWidth: number;
  /** Longest line, as a multiple of the height, read at full resolution; longer lines are squeezed. */
  maxAspect: number;
}

export const REC_DEFAULTS: RecOptions = { batchSize: 8, minWidth: 160, maxAspect: 40 };

/**
 * Recognises line crops in batches. Each crop is scaled to 48 px high keeping its aspect ratio
 * with area interpolation: homework lines are 30–44 px high, and enlarged this way (nearly
 * pixel-replicating, unlike bilinear) blurred photos read better — on 70 hard synthetic pages
 * 82.6 → 85.3 % and 84.4 → 86.1 % of verdicts right, easy and medium pages unchanged within a
 * problem or two (bilinear, bicubic and nearest were all worse);
 * crops are sorted by aspect ratio so a batch holds lines of similar width and little padding; a
 * batch is padded (mid-grey, 0 after normalisation) on the right to its widest crop.
 */
export async function recognizeCrops(session: ort.InferenceSession, dict: readonly string[], crops: Mat[], opts: RecOptions = REC_DEFAULTS): Promise<DecodedLine[]> {
  const out: DecodedLine[] = new Array<DecodedLine>(crops.length);
  const widths = crops.map((c) => Math.min(Math.ceil((REC_HEIGHT * c.cols) / c.rows), REC_HEIGHT * opts.maxAspect));
  const order = crops.map((_, i) => i).sort((a, b) => (widths[a] as number) - (widths[b] as number));
  const input = session.inputNames[0] as string;
  const output = session.outputNames[0] as string;
  for (let start = 0; start < order.length; start += opts.batchSize) {
    const batch = order.slice(start, start + opts.batchSize);
    const maxW = Math.max(opts.minWidth, ...batch.map((i) => widths[i] as number));
    const planeW = Math.ceil(maxW / 8) * 8;
    const per = 3 * REC_HEIGHT * planeW;
    const data = new Float32Array(batch.length * per);
    batch.forEach((idx, n) => {
      const crop = crops[idx] as Mat;
      const resized = crop.resize(REC_HEIGHT, widths[idx] as number, 0, 0, cv.INTER_AREA);
      writeChw(resized, data, n * per, planeW, REC_HEIGHT, REC_NORM);
    });
    const result = await session.run({ [input]: new ort.Tensor('float32', data, [batch.length, 3, REC_HEIGHT, planeW]) });
    const probs = result[output] as ort.Tensor;
    const [, steps, classes] = probs.dims as [number, number, number];
    const values = probs.data as Float32Array;
    batch.forEach((idx, n) => {
      const crop = crops[idx] as Mat;
      // A step covers planeW/steps input pixels; in crop pixels that is scaled by cols/resizedWidth.
      const pxPerStep = (planeW / steps) * (crop.cols / (widths[idx] as number));
      out[idx] = ctcDecode(values, n * steps * classes, steps, classes, dict, pxPerStep, crop.cols);
    });
    probs.dispose();
  }
  return out;
}
