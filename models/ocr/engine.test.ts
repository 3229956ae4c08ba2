import { copyFileSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, isLampError, type LampError } from '../../runtime/errors.js';
import { rejection } from '../../test/helpers/caught.js';
import { tempDir } from '../../test/helpers/app.js';
import { cv, type Mat } from '../cv.js';
import { loadManifest, type ModelEntry } from '../manifest.js';
import { OcrEngine, type OcrLine, type OcrTimings } from './index.js';

const FIXTURES = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'ocr');
interface Truth { text: string; box: { x: number; y: number; w: number; h: number } }
const pageTruth = (JSON.parse(readFileSync(path.join(FIXTURES, 'page.json'), 'utf8')) as { lines: Truth[] }).lines;
const CHINESE = '小明有12个苹果，吃了3个，还剩几个？';
const squash = (s: string) => s.replace(/\s+/g, '');

let engine: OcrEngine;
let page: Mat;
let chinese: Mat;
let pageLines: OcrLine[];

beforeAll(async () => {
  engine = await OcrEngine.load({ modelsDir: tempDir('lamp-ocr-none-') });
  page = cv.imread(path.join(FIXTURES, 'page.png'));
  chinese = cv.imread(path.join(FIXTURES, 'chinese.png'));
  pageLines = await engine.read(page);
});

afterAll(async () => {
  await engine?.release();
});

/** The read line whose box overlaps the true box the most. */
function lineAt(lines: OcrLine[], t: Truth): OcrLine | undefined {
  let best: OcrLine | undefined, bestArea = 0;
  for (const l of lines) {
    const w = Math.min(l.box.x + l.box.w, t.box.x + t.box.w) - Math.max(l.box.x, t.box.x);
    const h = Math.min(l.box.y + l.box.h, t.box.y + t.box.h) - Math.max(l.box.y, t.box.y);
    if (w > 0 && h > 0 && w * h > bestArea) [best, bestArea] = [l, w * h];
  }
  return best;
}

describe('OcrEngine on a homework page (1280×960, 40 problems)', () => {
  it('reads printed problems with ×, ÷, parentheses and the handwritten-style answers', () => {
    const texts = pageLines.map((l) => squash(l.text));
    for (const want of ['23+45=68', '71-36=35', '6×7=42', '56÷8=7', '90-48=42', '(12+8)×2=40', '(40-4)÷6=6', '100-55=45', '9×9=81', '口算练习第3课']) {
      expect(texts).toContain(want);
    }
    const exact = pageTruth.filter((t) => texts.includes(squash(t.text)));
    expect(exact.length).toBeGreaterThanOrEqual(37);
  });

  it('gives each line its place: the box over the printed line, reading order row by row', () => {
    for (const t of pageTruth) {
      const l = lineAt(pageLines, t);
      expect(l, t.text).toBeDefined();
      const b = (l as OcrLine).box;
      expect(Math.abs(b.x - t.box.x), t.text).toBeLessThan(15);
      expect(Math.abs(b.y + b.h / 2 - (t.box.y + t.box.h / 2)), t.text).toBeLessThan(8);
      // the right edge only where the whole line was read: a missed answer leaves it short
      if (squash(l?.text ?? '') === squash(t.text)) expect(Math.abs(b.x + b.w - (t.box.x + t.box.w)), t.text).toBeLessThan(20);
    }
    expect(pageLines.slice(0, 5).map((l) => squash(l.text))).toEqual(['口算练习第3课', '23+45=68', '71-36=35', '6×7=42', '56÷8=7']);
    const ys = pageLines.map((l) => l.box.y + l.box.h / 2);
    for (let i = 1; i < ys.length; i++) expect(ys[i] as number).toBeGreaterThan((ys[i - 1] as number) - 10);
  });

  it('reports confidences in (0, 1] and character spans in image pixels, in order along the line', () => {
    expect(pageLines.length).toBeGreaterThanOrEqual(40);
    for (const l of pageLines) {
      expect(l.confidence).toBeGreaterThan(0);
      expect(l.confidence).toBeLessThanOrEqual(1);
      expect(l.minCharConfidence).toBeGreaterThan(0);
      expect(l.minCharConfidence).toBeLessThanOrEqual(l.confidence);
      expect(l.chars.map((c) => c.text).join('')).toBe(l.text);
      expect(l.rotated180).toBe(false);
      expect(l.quad).toHaveLength(4);
      for (const [i, c] of l.chars.entries()) {
        expect(c.x1).toBeGreaterThan(c.x0);
        expect(c.x0).toBeGreaterThanOrEqual(l.box.x - 2);
        expect(c.x1).toBeLessThanOrEqual(l.box.x + l.box.w + 2);
        if (i > 0) expect(c.x0).toBeGreaterThanOrEqual((l.chars[i - 1] as { x1: number }).x1 - 0.01);
      }
    }
    // "23 + 45 = 68": the answer sits right of the "=", where the page drew it (x ≈ 218–246)
    const first = pageLines.find((l) => squash(l.text) === '23+45=68') as OcrLine;
    const eq = first.chars.find((c) => c.text === '=') as { x0: number; x1: number };
    const six = first.chars.find((c) => c.text === '6') as { x0: number; x1: number };
    expect(six.x0).toBeGreaterThan(eq.x1);
    expect((six.x0 + six.x1) / 2).toBeGreaterThan(212);
    expect((six.x0 + six.x1) / 2).toBeLessThan(236);
  });

  it('says how long each stage of reading a page took', async () => {
    const runs: OcrTimings[] = [];
    for (let i = 0; i < 3; i++) {
      const t: OcrTimings = { detectMs: 0, classifyMs: 0, recognizeMs: 0 };
      const started = performance.now();
      await engine.read(page, t);
      runs.push({ ...t, totalMs: performance.now() - started } as OcrTimings);
    }
    console.log('OCR read() of page.png 1280×960 (ms):', runs.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v as number)]))));
    for (const r of runs) expect(r.detectMs).toBeGreaterThan(0);
  });
});

describe('OcrEngine on Chinese', () => {
  it('reads a printed Chinese line with digits and punctuation', async () => {
    const lines = await engine.read(chinese);
    expect(lines.map((l) => l.text)).toEqual([CHINESE]);
    const [l] = lines as [OcrLine];
    expect(l.box.x).toBeGreaterThan(30);
    expect(l.box.x).toBeLessThan(55);
    expect(l.box.x + l.box.w).toBeGreaterThan(650);
  });

  it('turns an upside-down line with the angle classifier, and cannot read it without', async () => {
    const upside = chinese.rotate(cv.ROTATE_180);
    const [l, ...rest] = await engine.read(upside);
    expect(rest).toHaveLength(0);
    expect(l?.text).toBe(CHINESE);
    expect(l?.rotated180).toBe(true);
    // reading order along the image is right to left now: the first character is rightmost
    const chars = (l as OcrLine).chars;
    expect((chars[0] as { x0: number }).x0).toBeGreaterThan((chars.at(-1) as { x0: number }).x0);
    expect(engine.hasAngleClassifier).toBe(true);

    // One page faces one way: a line upside down among upright ones is not turned.
    const gap = new cv.Mat(40, chinese.cols, chinese.type, [255, 255, 255]);
    const mixed = new cv.Mat([...chinese.getDataAsArray(), ...gap.getDataAsArray(), ...chinese.getDataAsArray(), ...gap.getDataAsArray(), ...upside.getDataAsArray()], chinese.type);
    const lines = await engine.read(mixed);
    expect(lines.filter((x) => x.text === CHINESE)).toHaveLength(2);
    expect(lines.every((x) => !x.rotated180)).toBe(true);

    const plain = await OcrEngine.load({ modelsDir: tempDir('lamp-ocr-none-'), angleClassifier: false });
    try {
      expect(plain.hasAngleClassifier).toBe(false);
      const read = await plain.read(upside);
      expect(read.map((x) => x.text).join('')).not.toBe(CHINESE);
      expect(read.every((x) => !x.rotated180)).toBe(true);
    } finally {
      await plain.release();
    }
  });
});

describe('OcrEngine.recognize', () => {
  it('gives the same text in a batch as one crop at a time', async () => {
    const boxes = await engine.detect(page);
    expect(boxes.length).toBeGreaterThanOrEqual(40);
    const crops = boxes.map(({ quad }) => {
      const xs = quad.map((p) => p[0]), ys = quad.map((p) => p[1]);
      const x = Math.max(0, Math.min(...xs)), y = Math.max(0, Math.min(...ys));
      return page.getRegion(new cv.Rect(x, y, Math.min(page.cols, Math.max(...xs)) - x, Math.min(page.rows, Math.max(...ys)) - y));
    });
    const batched = await engine.recognize(crops);
    const single = [];
    for (const c of crops) single.push(...(await engine.recognize([c])));
    // the same reading, though a colon may come out in either of its widths (: or ：)
    const same = (s: string) => squash(s).replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
    expect(batched.map((r) => same(r.text))).toEqual(single.map((r) => same(r.text)));
    for (const [i, r] of batched.entries()) {
      expect(Math.abs(r.confidence - (single[i] as { confidence: number }).confidence)).toBeLessThan(0.2);
      for (const c of r.chars) expect(c.x1).toBeLessThanOrEqual((crops[i] as Mat).cols);
    }
  });

  it('returns nothing for no crops', async () => {
    expect(await engine.recognize([])).toEqual([]);
  });
});

describe('OcrEngine on bad input', () => {
  it('finds no lines on an all-white page', async () => {
    const white = new cv.Mat(960, 1280, cv.CV_8UC3, [255, 255, 255]);
    expect(await engine.detect(white)).toEqual([]);
    expect(await engine.read(white)).toEqual([]);
  });

  it('rejects an empty image or one of another pixel type with INPUT_REJECTED', async () => {
    for (const bad of [new cv.Mat(), new cv.Mat(100, 100, cv.CV_32FC3, [0, 0, 0])]) {
      const err = await rejection(engine.read(bad));
      expect(isLampError(err, ErrorCode.INPUT_REJECTED)).toBe(true);
    }
    const err = await rejection(engine.recognize([chinese, new cv.Mat()]));
    expect(isLampError(err, ErrorCode.INPUT_REJECTED)).toBe(true);
    expect((err as LampError).message).toContain('crop 1');
  });

  it('reads grey and BGRA images like BGR, and survives noise', async () => {
    const grey = chinese.cvtColor(cv.COLOR_BGR2GRAY);
    expect((await engine.read(grey)).map((l) => l.text)).toEqual([CHINESE]);
    expect((await engine.read(chinese.cvtColor(cv.COLOR_BGR2BGRA))).map((l) => l.text)).toEqual([CHINESE]);
    const { randomBytes } = await import('node:crypto');
    const noise = new cv.Mat(randomBytes(480 * 640 * 3), 480, 640, cv.CV_8UC3);
    for (const l of await engine.read(noise)) {
      expect(l.confidence).toBeGreaterThan(0);
      expect(l.confidence).toBeLessThanOrEqual(1);
    }
  });
});

describe('OcrEngine.load with missing or damaged model files', () => {
  /** The OCR entries of the manifest without their npm fallback, so only the model directory counts. */
  const dirOnly = (): ModelEntry[] => loadManifest().map((m) => ({ ...m, files: m.files.map(({ npm: _npm, ...f }) => f) }));
  const npmFile = (file: string) => path.join(import.meta.dirname, '..', '..', 'node_modules', '@gutenye', 'ocr-models', 'assets', file);
  const populate = (dir: string) => {
    for (const m of loadManifest().filter((x) => x.name.startsWith('pp'))) {
      mkdirSync(path.join(dir, m.name), { recursive: true });
      for (const f of m.files) copyFileSync(npmFile(f.path), path.join(dir, m.name, f.path));
    }
  };

  it('MODEL_MISSING naming the file when the model directory is empty', async () => {
    const err = await rejection(OcrEngine.load({ modelsDir: tempDir('lamp-ocr-empty-'), manifest: dirOnly() }));
    expect(isLampError(err, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((err as LampError).message).toContain('ch_PP-OCRv4_det_infer.onnx');
  });

  it('loads from the model directory, and goes without the classifier only when it was not required', async () => {
    const dir = tempDir('lamp-ocr-dir-');
    populate(dir);
    const ok = await OcrEngine.load({ modelsDir: dir, manifest: dirOnly() });
    expect(ok.hasAngleClassifier).toBe(true);
    expect((await ok.read(chinese)).map((l) => l.text)).toEqual([CHINESE]);
    await ok.release();

    truncateSync(path.join(dir, 'ppocr-mobile-cls', 'ch_ppocr_mobile_v2.0_cls_infer.onnx'), 1000);
    const without = await OcrEngine.load({ modelsDir: dir, manifest: dirOnly() });
    expect(without.hasAngleClassifier).toBe(false);
    await without.release();
    const err = await rejection(OcrEngine.load({ modelsDir: dir, manifest: dirOnly(), angleClassifier: true }));
    expect(isLampError(err, ErrorCode.MODEL_CORRUPT)).toBe(true);
    expect((err as LampError).message).toContain('ch_ppocr_mobile_v2.0_cls_infer.onnx');
  });

  it('MODEL_CORRUPT naming the file when a byte of the recogniser or its dictionary changed', async () => {
    for (const file of ['ch_PP-OCRv4_rec_infer.onnx', 'ppocr_keys_v1.txt']) {
      const dir = tempDir('lamp-ocr-bad-');
      populate(dir);
      const at = path.join(dir, 'ppocr-v4-rec', file);
      const bytes = readFileSync(at);
      bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] as number) ^ 0xff;
      writeFileSync(at, bytes);
      const err = await rejection(OcrEngine.load({ modelsDir: dir, manifest: dirOnly() }));
      expect(isLampError(err, ErrorCode.MODEL_CORRUPT)).toBe(true);
      expect((err as LampError).message).toContain(file);
    }
  });

  it('MODEL_LOAD_FAILED naming the file when an intact file is not a model onnxruntime can load', async () => {
    const dir = tempDir('lamp-ocr-junk-');
    populate(dir);
    const junk = Buffer.from('this is not an onnx model '.repeat(40));
    writeFileSync(path.join(dir, 'ppocr-v4-det', 'ch_PP-OCRv4_det_infer.onnx'), junk);
    const { createHash } = await import('node:crypto');
    const manifest = dirOnly().map((m) =>
      m.name === 'ppocr-v4-det' ? { ...m, files: m.files.map((f) => ({ ...f, bytes: junk.length, sha256: createHash('sha256').update(junk).digest('hex') })) } : m,
    );
    const err = await rejection(OcrEngine.load({ modelsDir: dir, manifest }));
    expect(isLampError(err, ErrorCode.MODEL_LOAD_FAILED)).toBe(true);
    expect((err as LampError).message).toContain('ch_PP-OCRv4_det_infer.onnx');
  });
});
