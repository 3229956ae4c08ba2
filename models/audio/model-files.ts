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

export interface TransducerFiles {
  encoder: string;
  decoder: string;
  joiner: string;
  tokens: string;
}

/**
 * The encoder, decoder, joiner and tokens of a streaming transducer in `dir`, each checked.
 * Released directories can hold several variants (float and int8, chunk-16 and chunk-8); the
 * decoder and joiner are taken from the same variant as the encoder. The decoder is small and
 * stays float, as in sherpa's own examples.
 */
export function findTransducer(dir: string, model: string, int8: boolean): TransducerFiles {
  requireModelDir(dir, model);
  const encoder = findModelFile(dir, model, /^encoder.*\.onnx$/, 'encoder-*.onnx', int8);
  const variant = path.basename(encoder).replace(/^encoder/, '').replace(/\.int8\.onnx$/, '.onnx');
  const pick = (part: 'decoder' | 'joiner', wantInt8: boolean): string => {
    const float = `${part}${variant}`;
    const quant = float.replace(/\.onnx$/, '.int8.onnx');
    const order = wantInt8 ? [quant, float] : [float, quant];
    const hit = order.find((n) => existsSync(path.join(dir, n)));
    return requireModelFile(path.join(dir, hit ?? float), model);
  };
  return {
    encoder,
    decoder: pick('decoder', false),
    joiner: pick('joiner', int8),
    tokens: requireModelFile(path.join(dir, 'tokens.txt'), model),
  };
}
