import * as ort from 'onnxruntime-node';
import { cv, type Mat } from '../cv.js';
import { REC_NORM, writeChw } from './tensor.js';

const CLS_H = 48, CLS_W = 192, CLS_BATCH = 8;
/** Turn a line only when the classifier is this sure it is upside down. */
export const CLS_THRESH = 0.9;

/**
 * Which crops are upside down, by the angle classifier (classes 0° and 180°). Each crop is scaled
 * to 48 px high, at most 192 wide, and padded to 192.
 */
export async function upsideDown(session: ort.InferenceSession, crops: Mat[]): Promise<boolean[]> {
  const flags: boolean[] = [];
  const input = session.inputNames[0] as string;
  const output = session.outputNames[0] as string;
  for (let start = 0; start < crops.length; start += CLS_BATCH) {
    const batch = crops.slice(start, start + CLS_BATCH);
    const per = 3 * CLS_H * CLS_W;
    const data = new Float32Array(batch.length * per);
    batch.forEach((crop, n) => {
      const w = Math.min(CLS_W, Math.ceil((CLS_H * crop.cols) / crop.rows));
      writeChw(crop.resize(CLS_H, w, 0, 0, cv.INTER_LINEAR), data, n * per, CLS_W, CLS_H, REC_NORM);
    });
    const result = await session.run({ [input]: new ort.Tensor('float32', data, [batch.length, 3, CLS_H, CLS_W]) });
    const probs = (result[output] as ort.Tensor).data as Float32Array;
    for (let n = 0; n < batch.length; n++) {
      const p180 = probs[n * 2 + 1] as number;
      flags.push(p180 > (probs[n * 2] as number) && p180 > CLS_THRESH);
    }
  }
  return flags;
}
