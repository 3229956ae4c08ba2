import { execFile } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { ErrorCode, LampError } from '../runtime/errors.js';
import { type ModelEntry, isVerifiable, sha256File } from './manifest.js';

const run = promisify(execFile);
const ARCHIVE = /\.(tgz|tar\.gz|tar\.bz2|tar\.xz|tar)$/;
/** No model the lamp uses is near this; a larger download is a wrong URL. */
const MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;

export interface FetchOptions {
  modelsDir: string;
  /** An archive or file already on disk (a technician's USB stick) instead of downloading `url`. */
  source?: string;
  /**
   * Install a model whose manifest entry has no sha256 yet, and report each file's size and
   * sha256 (to be checked against the publisher and written into the manifest). Off by
   * default: the lamp never installs unverified weights unless a person asks for it.
   */
  recordHashes?: boolean;
  log?: (line: string) => void;
}

async function download(url: string, to: string): Promise<void> {
  const res = await fetch(url, { redirect: 'follow' });
  if (!res.ok || !res.body) throw new LampError(ErrorCode.MODEL_MISSING, `download of ${url} failed: HTTP ${res.status}`, { url });
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_DOWNLOAD_BYTES) throw new LampError(ErrorCode.MODEL_CORRUPT, `${url} is ${declared} bytes, more than any model`, { url });
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), createWriteStream(to));
}

/** Brings back a model directory left as `.old-<name>` by an install that stopped between its two renames. */
async function recover(modelsDir: string, name: string): Promise<void> {
  const target = path.join(modelsDir, name);
  const old = path.join(modelsDir, `.old-${name}`);
  if (!existsSync(target) && existsSync(old)) await rename(old, target);
  else await rm(old, { recursive: true, force: true });
}

/**
 * Downloads one model (or takes it from `source`), verifies every file's size and sha256, and
 * installs it as `<modelsDir>/<name>/` atomically: the files are staged next to the target and
 * swapped in with renames, so the lamp sees either the old model or the whole new one, never a
 * half-written file. Nothing is installed when any file does not verify.
 */
export async function fetchModel(model: ModelEntry, opts: FetchOptions): Promise<string> {
  const say = opts.log ?? (() => undefined);
  if (!isVerifiable(model) && !opts.recordHashes) {
    throw new LampError(ErrorCode.MODEL_CORRUPT, `${model.name}: the manifest has no sha256 for it yet, so it cannot be verified; fetch it with --record-hashes on a trusted network and add the printed sizes and hashes to models/manifest.json`, { model: model.name });
  }
  await mkdir(opts.modelsDir, { recursive: true });
  await recover(opts.modelsDir, model.name);
  const work = await mkdtemp(path.join(opts.modelsDir, `.fetch-${model.name}-`));
  try {
    const isArchive = ARCHIVE.test(opts.source ?? new URL(model.url).pathname);
    let fetched = opts.source;
    if (!fetched) {
      fetched = path.join(work, isArchive ? 'archive' : (model.files[0] as ModelEntry['files'][number]).path);
      say(`${model.name}: downloading ${model.url}`);
      await download(model.url, fetched);
    }
    const unpacked = path.join(work, 'unpacked');
    await mkdir(unpacked);
    if (isArchive) {
      try {
        await run('tar', ['-xf', fetched, '-C', unpacked], { maxBuffer: 1 << 20 });
      } catch (err) {
        throw new LampError(ErrorCode.MODEL_CORRUPT, `${model.name}: cannot unpack ${fetched}: ${(err as Error).message.split('\n')[0]}`, { model: model.name });
      }
    }
    const staging = path.join(work, 'staging');
    for (const f of model.files) {
      const from = isArchive ? path.join(unpacked, f.from ?? f.path) : fetched;
      if (!existsSync(from)) throw new LampError(ErrorCode.MODEL_MISSING, `${model.name}: ${f.from ?? f.path} is not in ${model.url}`, { model: model.name, file: f.path });
      const bytes = (await stat(from)).size;
      if (f.bytes === null || f.sha256 === null) {
        say(`${model.name}: ${f.path} ${bytes} bytes sha256 ${sha256File(from)} (not in the manifest yet)`);
      } else if (bytes !== f.bytes) throw new LampError(ErrorCode.MODEL_CORRUPT, `${model.name}: ${f.path} is ${bytes} bytes, the manifest says ${f.bytes}`, { model: model.name, file: f.path });
      else if (sha256File(from) !== f.sha256) throw new LampError(ErrorCode.MODEL_CORRUPT, `${model.name}: ${f.path} does not match its sha256`, { model: model.name, file: f.path });
      const to = path.join(staging, f.path);
      await mkdir(path.dirname(to), { recursive: true });
      await copyFile(from, to);
    }
    const target = path.join(opts.modelsDir, model.name);
    const old = path.join(opts.modelsDir, `.old-${model.name}`);
    if (existsSync(target)) await rename(target, old);
    await rename(staging, target);
    await rm(old, { recursive: true, force: true });
    say(`${model.name}: ${model.files.length} file(s) verified and installed in ${target}`);
    return target;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
