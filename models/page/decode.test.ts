import { describe, expect, it } from 'vitest';
import { cv } from '../cv.js';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { decodeImage } from './decode.js';
import { assessQuality } from './quality.js';
import { findPageQuad } from './quad.js';
import { warpPage } from './warp.js';
import { deskew } from './deskew.js';
import { normaliseContrast } from './enhance.js';
import { inkMask } from './ink.js';
import { sliceLines } from './slice.js';
import { preparePage } from './pipeline.js';
import { makePhoto } from './testing.js';

function rejected(fn: () => unknown): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(isLampError(caught, ErrorCode.INPUT_REJECTED), String(caught)).toBe(true);
}

describe('decodeImage', () => {
  it('decodes a JPEG photo to a 3-channel BGR image of the same size', () => {
    const photo = makePhoto({ frameWidth: 1280, frameHeight: 720 });
    const img = decodeImage(photo.buffer);
    expect([img.cols, img.rows, img.channels]).toEqual([1280, 720, 3]);
    // The page in the middle is cream paper: red ≥ green ≥ blue, and bright.
    const [b, , r] = img.atRaw(360, 300) as unknown as number[];
    expect(r!).toBeGreaterThan(200);
    expect(r!).toBeGreaterThanOrEqual(b!);
  });

  it('decodes a grey PNG to BGR', () => {
    const png = cv.imencode('.png', new cv.Mat(100, 120, cv.CV_8UC1, 90));
    const img = decodeImage(png);
    expect([img.cols, img.rows, img.channels]).toEqual([120, 100, 3]);
  });

  it('rejects an empty buffer (which would abort OpenCV) with INPUT_REJECTED', () => {
    rejected(() => decodeImage(Buffer.alloc(0)));
  });

  it('rejects bytes that are not an image', () => {
    rejected(() => decodeImage(Buffer.from('this is not a photo of a page')));
    rejected(() => decodeImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]))); // a JPEG header and nothing else
  });

  it('rejects a 1×1 image as too small to hold a page', () => {
    const tiny = cv.imencode('.png', new cv.Mat(1, 1, cv.CV_8UC3, [255, 255, 255]));
    rejected(() => decodeImage(tiny));
  });
});

describe('every step rejects unusable images with INPUT_REJECTED', () => {
  const tiny = new cv.Mat(1, 1, cv.CV_8UC3, [255, 255, 255]);
  const empty = new cv.Mat();
  const float = new cv.Mat(100, 100, cv.CV_32FC3, [0.5, 0.5, 0.5]);
  const steps: [string, (m: InstanceType<typeof cv.Mat>) => unknown][] = [
    ['assessQuality', (m) => assessQuality(m)],
    ['findPageQuad', (m) => findPageQuad(m)],
    ['deskew', (m) => deskew(m)],
    ['normaliseContrast', (m) => normaliseContrast(m)],
    ['inkMask', (m) => inkMask(m, 'blue')],
    ['sliceLines', (m) => sliceLines(m)],
    ['warpPage', (m) => warpPage(m, [[0, 0], [50, 0], [50, 50], [0, 50]])],
  ];
  for (const [name, step] of steps) {
    it(name, () => {
      rejected(() => step(tiny));
      rejected(() => step(empty));
      rejected(() => step(float));
    });
  }

  it('warpPage rejects corners that do not form a quadrilateral', () => {
    const img = new cv.Mat(200, 200, cv.CV_8UC3, [200, 200, 200]);
    rejected(() => warpPage(img, [[10, 10], [10, 10], [10, 10], [10, 10]]));
    rejected(() => warpPage(img, [[Number.NaN, 0], [100, 0], [100, 100], [0, 100]]));
  });

  it('preparePage rejects garbage bytes', async () => {
    await expect(preparePage(Buffer.from('garbage'))).rejects.toMatchObject({ code: ErrorCode.INPUT_REJECTED });
    await expect(preparePage(Buffer.alloc(0))).rejects.toMatchObject({ code: ErrorCode.INPUT_REJECTED });
  });
});
