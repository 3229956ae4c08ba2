import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, LampError } from '../../runtime/errors.js';

/**
 * Checks on the speech models' files before any of them reaches sherpa-onnx: sherpa either does
 * not notice a missing file (its VAD) or stops the whole process with a native error, so a
 * missing or empty file must become a LampError that names it.
 */

export function requireModelDir(dir: string, model: string): string {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new LampError(ErrorCode.MODEL_MISSING, `model ${model}: directory ${dir} does not exist`, { model, file: dir });
  }
  return dir;
}

export function requireModelFile(file: string, model: string): string {
  if (!existsSync(file)) {
    throw new LampError(ErrorCode.MODEL_MISSING, `model ${model}: ${file} is missing`, { model, file });
  }
  const st = statSync(file);
  if (st.isDirectory()) return file;
  if (st.size === 0) {
    throw new LampError(ErrorCode.MODEL_CORRUPT, `model ${model}: ${file} is empty`, { model, file });
  }
  return file;
}

/**
 * The one file in `dir` whose name matches `pattern`. Released sherpa models carry both a float
 * and an int8 copy of the large networks; `preferInt8` picks the int8 one when it is there (a
 * third of the memory, and faster on the board's CPU).
 */
export function findModelFile(dir: string, model: string, pattern: RegExp, describe: string, preferInt8 = false): string {
  const names = readdirSync(dir).filter((n) => pattern.test(n)).sort();
  const int8 = names.filter((n) => n.includes('.int8.'));
  const float = names.filter((n) => !n.includes('.int8.'));
  const pick = preferInt8 ? (int8[0] ?? float[0]) : (float[0] ?? int8[0]);
  if (!pick) {
    throw new LampError(ErrorCode.MODEL_MISSING, `model ${model}: no ${describe} in ${dir}`, { model, file: path.join(dir, describe) });
  }
  return requireModelFile(path.join(dir, pick), model);
}
