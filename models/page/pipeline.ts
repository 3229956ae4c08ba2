import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cv, type Mat } from '../cv.js';
import type { Logger } from '../../runtime/log.js';
import { ErrorCode, LampError, toLampError } from '../../runtime/errors.js';
import { decodeImage } from './decode.js';
import { deskew } from './deskew.js';
import { denoise, normaliseContrast } from './enhance.js';
import { requireImage, since, toBgr } from './image.js';
import { detectPage, quadArea } from './quad.js';
import { assessQuality } from './quality.js';
import { sliceLines, sliceRegions, textMask } from './slice.js';
import type { PreparedPage, QualityReport, Quad, StepTimings } from './types.js';
import { warpPage } from './warp.js';

export interface PrepareOptions {
  /** Writes every intermediate image here (01-input.jpg, 02-quad.jpg, …): the one debug switch. */
  dumpDir?: string;
  /** Skip the quality gate (simulator pages and flat scans); the page is still found and flattened. */
  skipQuality?: boolean;
  log?: Logger;
}

/**
 * Lets the event loop run between steps. The binding's *Async variants would move work off the
 * loop, but with @u4/opencv4nodejs 7.1.2 on Node 20 they crash the process in V8's garbage
 * collector ("Check failed: marking_done_", UrielCh/opencv4nodejs#134 and #148; reproduced here
 * within a few hundred calls), so every step runs synchronously and the loop is blocked for one
 * step at a time (≤ ~40 ms) instead of for the whole pipeline.
 */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The homework page pipeline: decode → quality gate → find and flatten the page → deskew →
 * denoise and normalise → slice into lines and problem regions. Fixed OpenCV steps; no model
 * decides anything. When the quality gate says no, returns early with `ok: false` and the hint.
 */
export async function preparePage(input: Buffer | Mat, opts: PrepareOptions = {}): Promise<PreparedPage> {
  const t: StepTimings = { decode: 0, quality: 0, rectify: 0, deskew: 0, enhance: 0, slice: 0, total: 0 };
  const start = performance.now();
  let s = start;
  let img: Mat;
  if (Buffer.isBuffer(input)) img = decodeImage(input);
  else {
    requireImage(input, 'preparePage');
    img = toBgr(input);
  }
  t.decode = since(s);
  const dump = opts.dumpDir ? new Dumper(opts.dumpDir) : undefined;
  await dump?.image('01-input.jpg', img);
  await yieldToLoop();

  s = performance.now();
  let quality: QualityReport;
  if (opts.skipQuality) {
    const det = detectPage(img);
    // Paper on three or more edges is a flat scan or a simulator page: the frame is the page.
    const quad = det.quad && det.touchingSides < 3 ? det.quad : fullFrame(img);
    quality = {
      ok: true,
      metrics: {
        sharpness: 0,
        sharpnessNorm: 0,
        brightness: 0,
        clippedRatio: 0,
        inkLevel: 0,
        pageAreaRatio: quadArea(quad) / (img.rows * img.cols),
        paperRatio: det.paperRatio,
        touchingSides: det.touchingSides,
        rotationDeg: 0,
        sideRatio: 1,
      },
      quad,
    };
  } else quality = assessQuality(img);
  t.quality = since(s);
  await dump?.json('00-quality.json', quality);
  if (!quality.ok) {
    t.total = since(start);
    opts.log?.debug({ issue: quality.issue, metrics: quality.metrics, timings_ms: t }, 'page rejected by the quality gate');
    if (dump) await dump.image('02-quad.jpg', drawQuad(img, quality.quad));
    return { ok: false, quality, timingsMs: t };
  }
  const quad = quality.quad ?? fullFrame(img);
  if (dump) await dump.image('02-quad.jpg', drawQuad(img, quad));
  await yieldToLoop();

  try {
    s = performance.now();
    const warped = warpPage(img, quad);
    t.rectify = since(s);
    await dump?.image('03-warped.jpg', warped.page);
    await yieldToLoop();

    s = performance.now();
    const straight = deskew(warped.page);
    t.deskew = since(s);
    await dump?.image('04-deskewed.jpg', straight.page);
    await yieldToLoop();

    s = performance.now();
    const clean = denoise(straight.page);
    await yieldToLoop();
    const page = normaliseContrast(clean);
    t.enhance = since(s);
    await dump?.image('05-denoised.jpg', clean);
    await dump?.image('06-normalised.jpg', page);
    await yieldToLoop();

    s = performance.now();
    const mask = textMask(page);
    const lines = sliceLines(page, mask);
    const regions = sliceRegions(page, lines, mask);
    t.slice = since(s);
    if (dump) {
      await dump.image('07-ink.png', mask);
      await dump.image('08-slices.jpg', drawSlices(page, lines, regions));
    }
    t.total = since(start);
    opts.log?.debug({ timings_ms: t, lines: lines.length, regions: regions.length, deskew_deg: straight.angleDeg }, 'page prepared');
    const toSource = (x: number, y: number): [number, number] => {
      const [ux, uy] = straight.toUnrotated(x, y);
      return warped.toSource(ux, uy);
    };
    return { ok: true, quality, page, toSource, quad, deskewDeg: straight.angleDeg, lines, regions, timingsMs: t };
  } catch (err) {
    throw toLampError(err, ErrorCode.INPUT_REJECTED, 'page pipeline failed', { quad });
  }
}

function fullFrame(img: Mat): Quad {
  return [
    [0, 0],
    [img.cols, 0],
    [img.cols, img.rows],
    [0, img.rows],
  ];
}

function drawQuad(img: Mat, quad: Quad | undefined): Mat {
  const out = img.copy();
  if (quad) {
    out.drawPolylines([quad.map(([x, y]) => new cv.Point2(Math.round(x), Math.round(y)))], true, new cv.Vec3(0, 200, 0), 3);
    quad.forEach(([x, y], i) => out.putText(['TL', 'TR', 'BR', 'BL'][i]!, new cv.Point2(Math.round(x) + 6, Math.round(y) + 24), cv.FONT_HERSHEY_SIMPLEX, 0.8, new cv.Vec3(0, 0, 255), 2));
  }
  return out;
}

function drawSlices(page: Mat, lines: { y: number; h: number }[], regions: { x: number; y: number; w: number; h: number }[]): Mat {
  const out = page.copy();
  for (const l of lines) out.drawRectangle(new cv.Point2(2, l.y), new cv.Point2(out.cols - 3, l.y + l.h), new cv.Vec3(0, 180, 255), 1);
  for (const r of regions) out.drawRectangle(new cv.Point2(r.x, r.y), new cv.Point2(r.x + r.w, r.y + r.h), new cv.Vec3(0, 160, 0), 2);
  return out;
}

/** Writes the intermediate images of one run; failures to write are reported, not swallowed. */
class Dumper {
  private ready: Promise<void> | undefined;
  constructor(private readonly dir: string) {}

  private async ensureDir(): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
    try {
      await this.ready;
    } catch (err) {
      throw new LampError(ErrorCode.STORAGE_DIR_UNWRITABLE, `cannot create the page dump directory ${this.dir}`, { dir: this.dir }, { cause: err });
    }
  }

  async image(name: string, img: Mat): Promise<void> {
    await this.ensureDir();
    const ext = name.endsWith('.png') ? '.png' : '.jpg';
    await writeFile(join(this.dir, name), cv.imencode(ext, img, ext === '.jpg' ? [cv.IMWRITE_JPEG_QUALITY, 90] : []));
  }

  async json(name: string, value: unknown): Promise<void> {
    await this.ensureDir();
    await writeFile(join(this.dir, name), JSON.stringify(value, null, 2));
  }
}
