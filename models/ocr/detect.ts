import * as ort from 'onnxruntime-node';
import { cv, type Mat } from '../cv.js';
import { dbBoxes, DB_DEFAULTS, type DbOptions, type DetectedBox } from './db-postprocess.js';
import { DET_NORM, writeChw } from './tensor.js';

/**
 * The size the detector sees: the long side at most `limit`, both sides a multiple of 32 (the
 * network downsamples by 32), never below 32.
 */
export function detectorSize(w: number, h: number, limit: number): { w: number; h: number } {
  const ratio = Math.max(w, h) > limit ? limit / Math.max(w, h) : 1;
  const to32 = (v: number) => Math.max(32, Math.round((v * ratio) / 32) * 32);
  return { w: to32(w), h: to32(h) };
}

export async function detectBoxes(session: ort.InferenceSession, image: Mat, limit: number, db: DbOptions = DB_DEFAULTS): Promise<DetectedBox[]> {
  const size = detectorSize(image.cols, image.rows, limit);
  const resized = image.resize(size.h, size.w, 0, 0, cv.INTER_LINEAR);
  const data = new Float32Array(3 * size.w * size.h);
  writeChw(resized, data, 0, size.w, size.h, DET_NORM);
  const input = session.inputNames[0] as string;
  const output = session.outputNames[0] as string;
  const result = await session.run({ [input]: new ort.Tensor('float32', data, [1, 3, size.h, size.w]) });
  const prob = result[output] as ort.Tensor;
  const [, , mapH, mapW] = prob.dims as [number, number, number, number];
  const boxes = dbBoxes(prob.data as Float32Array, mapW, mapH, image.cols, image.rows, db);
  prob.dispose();
  return boxes;
}
