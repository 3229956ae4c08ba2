import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ErrorCode, LampError } from '../runtime/errors.js';
import { projectRoot } from '../runtime/paths.js';

const fileSchema = z.strictObject({
  path: z.string().min(1),
  /** Exact size and sha256; null while not yet verified from the official archive (see `verified`). */
  bytes: z.number().int().positive().nullable(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  /** The size the publisher's page shows, for an entry not verified yet. */
  approxSize: z.string().nullable().optional(),
  /** Where an npm dependency ships the same file, relative to node_modules (development machines). */
  npm: z.string().optional(),
  /** Where the file is inside the downloaded archive (`npm run models:fetch`); default: its `path`. */
  from: z.string().optional(),
});

const modelSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9-]+$/),
  purpose: z.string(),
  license: z.string(),
  /** Official download: an archive (.tgz, .tar.gz, .tar.bz2) holding the files, or the one file itself. */
  url: z.string().url(),
  files: z.array(fileSchema).min(1),
  /** What the lamp does when this model is missing or corrupt. */
  without: z.string(),
  notes: z.string().optional(),
});

const manifestSchema = z.strictObject({ version: z.literal(1), models: z.array(modelSchema) });

export type ModelEntry = z.infer<typeof modelSchema>;
export type ModelStatus = 'present' | 'unverified' | 'missing' | 'corrupt';

/** Whether every file of the entry has a size and sha256 to check against. */
export function isVerifiable(model: ModelEntry): boolean {
  return model.files.every((f) => f.bytes !== null && f.sha256 !== null);
}

export interface ModelCheck {
  name: string;
  status: ModelStatus;
  /** The directory or files where it was found. */
  location?: string;
  detail: string;
  without: string;
}

export function loadManifest(file = path.join(projectRoot(), 'models', 'manifest.json')): ModelEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new LampError(ErrorCode.MODEL_MANIFEST_INVALID, `cannot read model manifest ${file}: ${(err as Error).message}`, { file });
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new LampError(ErrorCode.MODEL_MANIFEST_INVALID, `model manifest ${file} is invalid: ${parsed.error.issues.map((i) => i.path.join('.') + ' ' + i.message).join('; ')}`, { file });
  }
  return parsed.data.models;
}

export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The model directory of a configuration: `models.dir`, else `<dataDir>/models`. */
export function modelsDirOf(config: { dataDir: string; models: { dir: string } }): string {
  return path.resolve(config.models.dir || path.join(config.dataDir, 'models'));
}

/** Where a model file is: the model directory first (field devices), then an npm package (development). */
export function locateModelFile(modelsDir: string, model: ModelEntry, file: ModelEntry['files'][number]): string | undefined {
  const inDir = path.join(modelsDir, model.name, file.path);
  if (existsSync(inDir)) return inDir;
  if (file.npm) {
    const inNpm = path.join(projectRoot(), 'node_modules', file.npm);
    if (existsSync(inNpm)) return inNpm;
  }
  return undefined;
}

/** Checks one model's files by size and sha256. */
export function checkModel(modelsDir: string, model: ModelEntry): ModelCheck {
  const found: string[] = [];
  for (const f of model.files) {
    const at = locateModelFile(modelsDir, model, f);
    if (!at) return { name: model.name, status: 'missing', detail: `${f.path} not in ${path.join(modelsDir, model.name)}`, without: model.without };
    const bytes = statSync(at).size;
    if (f.bytes === null || f.sha256 === null) {
      found.push(at);
      continue;
    }
    if (bytes !== f.bytes) return { name: model.name, status: 'corrupt', location: at, detail: `${f.path}: ${bytes} bytes, expected ${f.bytes}`, without: model.without };
    if (sha256File(at) !== f.sha256) return { name: model.name, status: 'corrupt', location: at, detail: `${f.path}: sha256 mismatch`, without: model.without };
    found.push(at);
  }
  const location = path.dirname(found[0] as string);
  if (!isVerifiable(model)) return { name: model.name, status: 'unverified', location, detail: `${model.files.length} file(s) present but not verified: the manifest has no sha256 for this model yet`, without: model.without };
  return { name: model.name, status: 'present', location, detail: `${model.files.length} file(s) verified`, without: model.without };
}
