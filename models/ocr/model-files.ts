import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { ErrorCode, LampError, toLampError } from '../../runtime/errors.js';
import { checkModel, loadManifest, locateModelFile, type ModelEntry } from '../manifest.js';

export const OCR_MODELS = { det: 'ppocr-v4-det', rec: 'ppocr-v4-rec', cls: 'ppocr-mobile-cls' } as const;

/**
 * Verifies one manifest model (size and sha256 of every file) and returns the path of each file by
 * its manifest name. A missing or corrupt file is a LampError that names the file, so the technician
 * knows what to copy into `<modelsDir>/<name>/`.
 */
export function verifiedModelFiles(modelsDir: string, name: string, manifest: ModelEntry[] = loadManifest()): Map<string, string> {
  const model = manifest.find((m) => m.name === name);
  if (!model) throw new LampError(ErrorCode.MODEL_MANIFEST_INVALID, `model manifest has no entry ${name}`, { model: name });
  const check = checkModel(modelsDir, model);
  const context = { model: name, modelsDir, location: check.location, without: model.without };
  if (check.status === 'missing') throw new LampError(ErrorCode.MODEL_MISSING, `OCR model ${name} is missing: ${check.detail}`, context);
  if (check.status === 'corrupt') throw new LampError(ErrorCode.MODEL_CORRUPT, `OCR model ${name} is corrupt: ${check.detail}`, context);
  const files = new Map<string, string>();
  for (const f of model.files) files.set(f.path, locateModelFile(modelsDir, model, f) as string);
  return files;
}

export function onnxFile(files: Map<string, string>): string {
  for (const [name, at] of files) if (name.endsWith('.onnx')) return at;
  throw new LampError(ErrorCode.MODEL_MANIFEST_INVALID, 'OCR model entry lists no .onnx file', { files: [...files.keys()] });
}

export async function openSession(file: string, threads: number): Promise<ort.InferenceSession> {
  try {
    // Two cores on the board: ops in parallel inside one inference, inferences one after another.
    // Worker threads sleep between ops instead of spinning: the board also runs audio and ASR.
    return await ort.InferenceSession.create(readFileSync(file), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
  } catch (err) {
    throw toLampError(err, ErrorCode.MODEL_LOAD_FAILED, `cannot load OCR model ${file}`, { file });
  }
}

/**
 * The recognition dictionary as the model's output classes: index 0 is the CTC blank, then one
 * class per line of ppocr_keys_v1.txt, then a space (the model was trained with use_space_char).
 */
export function loadDictionary(file: string, classes: number): string[] {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (lines.at(-1) === '') lines.pop();
  const dict = ['', ...lines, ' '];
  if (dict.length !== classes) {
    throw new LampError(ErrorCode.MODEL_CORRUPT, `OCR dictionary ${file} has ${lines.length} entries, the recognition model expects ${classes - 2}`, { file, classes });
  }
  return dict.map(halfWidth);
}

/**
 * Full-width digits, Latin letters, brackets and arithmetic signs (０, ８, （, ＋, ＝ …) read as their ASCII forms:
 * the dictionary has both, the recogniser picks either for the same printed digit, and what reads
 * the result compares digits. Chinese punctuation (，？：) stays as it is.
 */
export function halfWidth(s: string): string {
  return s.replace(/[\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A\uFF08\uFF09\uFF0B\uFF0D\uFF1C-\uFF1E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}
