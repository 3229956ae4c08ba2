import { describe, expect, it } from 'vitest';
import { cv } from '../cv.js';
import { PAGE_LONG_SIDE, warpPage } from './warp.js';
import { makePhoto } from './testing.js';
import type { Quad } from './types.js';

describe('warpPage', () => {
  const photo = makePhoto({ desk: 'dark', rotationDeg: 10, keystone: 0.15, areaRatio: 0.5, jpegQuality: 0 });

  it('flattens the page to its aspect with the long side at PAGE_LONG_SIDE', () => {
    const { page } = warpPage(photo.image, photo.quad);
    expect(Math.max(page.cols, page.rows)).toBe(PAGE_LONG_SIDE);
    // The flat worksheet is 1200×900 (4:3); perspective skews the measured aspect a little.
    expect(page.cols / page.rows).toBeGreaterThan(1.25);
    expect(page.cols / page.rows).toBeLessThan(1.42);
  });

  it('maps page corners back to the photo corners, and round-trips points', () => {
    const { page, toSource, fromSource } = warpPage(photo.image, photo.quad);
    const corners: [number, number][] = [[0, 0], [page.cols, 0], [page.cols, page.rows], [0, page.rows]];
    corners.forEach(([x, y], i) => {
      const [sx, sy] = toSource(x, y);
      expect(Math.hypot(sx - photo.quad[i]![0], sy - photo.quad[i]![1])).toBeLessThan(0.01);
    });
    for (const [x, y] of [[100, 200], [640, 480], [1000, 50]] as const) {
      const [px, py] = fromSource(...toSource(x, y));
      expect(px).toBeCloseTo(x, 6);
      expect(py).toBeCloseTo(y, 6);
    }
  });

  it('puts the printed content where the flat page had it', () => {
    // The first problem's box on the flat page, scaled to the warped page, must hold dark print.
    const { page } = warpPage(photo.image, photo.quad);
    const s = page.cols / photo.layout.width;
    const p = photo.problems[0]!;
    const box = page.getRegion(new cv.Rect(Math.round(p.x * s), Math.round(p.y * s), Math.round(p.w * s * 0.6), Math.round(p.h * s))).bgrToGray();
    const gap = page.getRegion(new cv.Rect(Math.round(p.x * s), Math.round((p.y + p.h + 20) * s), Math.round(p.w * s * 0.6), Math.round(p.h * s * 0.6))).bgrToGray();
    expect(box.threshold(100, 255, cv.THRESH_BINARY_INV).countNonZero()).toBeGreaterThan(100);
    expect(gap.threshold(100, 255, cv.THRESH_BINARY_INV).countNonZero()).toBe(0);
  });

  it('accepts corners slightly outside the frame (a page edge just out of view)', () => {
    const q: Quad = [[-10, -5], [1290, 0], [1285, 965], [0, 960]];
    const { page } = warpPage(photo.image, q);
    expect(page.cols * page.rows).toBeGreaterThan(1000 * 700);
  });
});
