import { describe, expect, it } from 'vitest';
import { cv } from '../cv.js';
import { deskew, estimateSkewDeg } from './deskew.js';
import { makeFlatPage } from './testing.js';
import { sliceLines } from './slice.js';

describe('deskew', () => {
  for (const angle of [2.5, -3.5, 1.2, -0.8, 4.5]) {
    it(`finds a content rotation of ${angle}° within 0.5°`, () => {
      const { flat } = makeFlatPage({ contentAngleDeg: angle, rows: 7, cols: 3 }, 2);
      expect(Math.abs(estimateSkewDeg(flat) - angle)).toBeLessThan(0.5);
    });
  }

  it('straightens the page so that its line bands become thin again', () => {
    const { flat } = makeFlatPage({ contentAngleDeg: 3, rows: 6, cols: 3 }, 4);
    const meanHeight = (lines: { h: number }[]): number => lines.reduce((a, l) => a + l.h, 0) / lines.length;
    const before = meanHeight(sliceLines(flat));
    const out = deskew(flat);
    expect(out.angleDeg).toBeGreaterThan(2.5);
    const lines = sliceLines(out.page);
    expect(lines).toHaveLength(6);
    expect(meanHeight(lines)).toBeLessThan(before * 0.6);
  });

  it('leaves a straight page untouched (no resampling)', () => {
    const { flat } = makeFlatPage({ contentAngleDeg: 0.1 }, 3);
    const out = deskew(flat);
    expect(out.angleDeg).toBe(0);
    expect(out.page).toBe(flat);
    expect(out.toUnrotated(100, 200)).toEqual([100, 200]);
  });

  it('maps straightened points back onto the tilted page', () => {
    const { flat } = makeFlatPage({ contentAngleDeg: 2 }, 5);
    const out = deskew(flat);
    const c = [flat.cols / 2, flat.rows / 2] as const;
    // The centre is fixed; a point right of centre came from slightly higher up (counter-clockwise tilt).
    const [cx, cy] = out.toUnrotated(c[0], c[1]);
    expect(cx).toBeCloseTo(c[0], 6);
    expect(cy).toBeCloseTo(c[1], 6);
    const [, ry] = out.toUnrotated(c[0] + 400, c[1]);
    expect(ry).toBeLessThan(c[1] - 400 * Math.sin((1.5 * Math.PI) / 180));
  });

  it('returns 0 for a blank page', () => {
    expect(estimateSkewDeg(new cv.Mat(600, 800, cv.CV_8UC3, [240, 240, 240]))).toBe(0);
  });
});
