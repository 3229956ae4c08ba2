import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../runtime/errors.js';
import { rejection } from '../test/helpers/caught.js';
import { fetchModel } from './fetch.js';
import { type ModelEntry, checkModel } from './manifest.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('models:fetch', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lamp-fetch-'));
  const weights = Buffer.from('weights of a small model '.repeat(100));
  const tokens = Buffer.from('a 1\nb 2\n');
  let server: Server;
  let base: string;
  const served = new Map<string, Buffer>();

  beforeAll(async () => {
    // A release archive laid out as upstream does: one top-level folder holding the files.
    const src = path.join(root, 'src', 'tiny-model-2026');
    mkdirSync(src, { recursive: true });
    writeFileSync(path.join(src, 'model.onnx'), weights);
    writeFileSync(path.join(src, 'tokens.txt'), tokens);
    execFileSync('tar', ['-cjf', path.join(root, 'tiny.tar.bz2'), '-C', path.join(root, 'src'), 'tiny-model-2026']);
    served.set('/tiny.tar.bz2', readFileSync(path.join(root, 'tiny.tar.bz2')));
    served.set('/model.onnx', weights);
    server = createServer((req, res) => {
      const body = served.get(req.url ?? '');
      res.writeHead(body ? 200 : 404).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const entry = (over: Partial<ModelEntry> = {}, weightsSha = sha(weights)): ModelEntry => ({
    name: 'tiny',
    purpose: 'test',
    license: 'MIT',
    url: `${base}/tiny.tar.bz2`,
    without: 'nothing',
    files: [
      { path: 'model.onnx', bytes: weights.length, sha256: weightsSha, from: 'tiny-model-2026/model.onnx' },
      { path: 'tokens.txt', bytes: tokens.length, sha256: sha(tokens), from: 'tiny-model-2026/tokens.txt' },
    ],
    ...over,
  });

  it('downloads an archive, verifies every file and installs the model', async () => {
    const dir = path.join(root, 'models-a');
    const at = await fetchModel(entry(), { modelsDir: dir });
    expect(readFileSync(path.join(at, 'model.onnx'))).toEqual(weights);
    expect(checkModel(dir, entry()).status).toBe('present');
    expect(readdirSync(dir)).toEqual(['tiny']); // no staging or download left behind
  });

  it('installs a single-file download', async () => {
    const dir = path.join(root, 'models-b');
    const one = entry({ url: `${base}/model.onnx`, files: [{ path: 'model.onnx', bytes: weights.length, sha256: sha(weights) }] });
    await fetchModel(one, { modelsDir: dir });
    expect(checkModel(dir, one).status).toBe('present');
  });

  it('a file that does not verify installs nothing and keeps the model that was there', async () => {
    const dir = path.join(root, 'models-c');
    await fetchModel(entry(), { modelsDir: dir });
    const err = await rejection(fetchModel(entry({}, 'f'.repeat(64)), { modelsDir: dir }));
    expect(err).toMatchObject({ code: ErrorCode.MODEL_CORRUPT, message: expect.stringContaining('model.onnx does not match its sha256') });
    expect(readFileSync(path.join(dir, 'tiny', 'model.onnx'))).toEqual(weights);
    expect(readdirSync(dir)).toEqual(['tiny']);
  });

  it('a missing download, a file not in the archive and a garbage archive are clear errors', async () => {
    const dir = path.join(root, 'models-d');
    expect(await rejection(fetchModel(entry({ url: `${base}/nothing.tar.bz2` }), { modelsDir: dir }))).toMatchObject({ code: ErrorCode.MODEL_MISSING, message: expect.stringContaining('HTTP 404') });
    const missing = entry();
    missing.files[1] = { ...(missing.files[1] as ModelEntry['files'][number]), from: 'tiny-model-2026/lexicon.txt' };
    expect(await rejection(fetchModel(missing, { modelsDir: dir }))).toMatchObject({ code: ErrorCode.MODEL_MISSING, message: expect.stringContaining('lexicon.txt is not in') });
    const garbage = path.join(root, 'garbage.tar.bz2');
    writeFileSync(garbage, 'not an archive');
    expect(await rejection(fetchModel(entry(), { modelsDir: dir, source: garbage }))).toMatchObject({ code: ErrorCode.MODEL_CORRUPT, message: expect.stringContaining('cannot unpack') });
    expect(existsSync(path.join(dir, 'tiny'))).toBe(false);
  });

  it('a model with no sha256 in the manifest is refused unless hashes are being recorded, then reported as unverified', async () => {
    const dir = path.join(root, 'models-f');
    const unverified = entry();
    unverified.files = unverified.files.map((f) => ({ ...f, bytes: null, sha256: null }));
    expect(await rejection(fetchModel(unverified, { modelsDir: dir }))).toMatchObject({ code: ErrorCode.MODEL_CORRUPT, message: expect.stringContaining('no sha256') });
    const lines: string[] = [];
    await fetchModel(unverified, { modelsDir: dir, recordHashes: true, log: (l) => lines.push(l) });
    expect(lines).toContain(`tiny: model.onnx ${weights.length} bytes sha256 ${sha(weights)} (not in the manifest yet)`);
    expect(checkModel(dir, unverified).status).toBe('unverified');
  });

  it('installs from an archive on disk, and recovers an install cut between its two renames', async () => {
    const dir = path.join(root, 'models-e');
    mkdirSync(path.join(dir, '.old-tiny'), { recursive: true });
    await fetchModel(entry(), { modelsDir: dir, source: path.join(root, 'tiny.tar.bz2') });
    expect(checkModel(dir, entry()).status).toBe('present');
    expect(existsSync(path.join(dir, '.old-tiny'))).toBe(false);
  });
});
