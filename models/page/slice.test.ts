import { describe, expect, it } from 'vitest';
import { cv } from '../cv.js';
import { sliceLines, sliceRegions } from './slice.js';
import { inkMask } from './ink.js';
import { makeFlatPage } from './testing.js';

describe('sliceLines and sliceRegions', () => {
  it('finds one line per row and one region per problem in a 6×3 drill', () => {
    const { flat, problems } = makeFlatPage({ rows: 6, cols: 3 }, 11);
    const lines = sliceLines(flat);
    expect(lines).toHaveLength(6);
    const regions = sliceRegions(flat);
    expect(regions).toHaveLength(18);
    // Each region covers its problem (printed part and any answer) and no other.
    regions.forEach((r, i) => {
      const p = problems[i]!;
      expect(r.x).toBeLessThanOrEqual(p.x + 6); // glyphs start a few px after the text origin
      expect(r.x + r.w).toBeGreaterThanOrEqual(p.x + p.w - 12); // text size includes the advance after the last glyph
      expect(r.x + r.w).toBeLessThan(p.x + p.w + 40);
      expect(Math.abs(r.y + r.h - (p.y + p.h))).toBeLessThan(12);
    });
  });

  it('counts 2-, 3- and 4-column layouts', () => {
    for (const [rows, cols] of [[4, 2], [8, 4], [10, 3]] as const) {
      const { flat } = makeFlatPage({ rows, cols, width: 1400, height: 1000 }, rows * cols);
      expect(sliceLines(flat), `${rows}×${cols}`).toHaveLength(rows);
      expect(sliceRegions(flat), `${rows}×${cols}`).toHaveLength(rows * cols);
    }
  });

  it('ignores the ruled lines of an exercise book and keeps the title as its own line', () => {
    const { flat } = makeFlatPage({ rows: 5, cols: 3, ruled: true, title: true }, 12);
    const lines = sliceLines(flat);
    expect(lines).toHaveLength(6);
    expect(lines.every((l) => l.h > 15)).toBe(true);
  });

  it('finds nothing on a blank page', () => {
    const blank = new cv.Mat(900, 1200, cv.CV_8UC3, [255, 255, 255]);
    expect(sliceLines(blank)).toEqual([]);
    expect(sliceRegions(blank)).toEqual([]);
  });
});

describe('inkMask', () => {
  it('tells blue ink from black print', () => {
    const img = new cv.Mat(100, 200, cv.CV_8UC3, [255, 255, 255]);
    img.drawRectangle(new cv.Point2(10, 10), new cv.Point2(60, 60), new cv.Vec3(20, 20, 20), cv.FILLED); // print
    img.drawRectangle(new cv.Point2(110, 10), new cv.Point2(160, 60), new cv.Vec3(190, 80, 30), cv.FILLED); // blue pen
    img.drawRectangle(new cv.Point2(10, 70), new cv.Point2(60, 95), new cv.Vec3(30, 30, 200), cv.FILLED); // red mark
    const blue = inkMask(img, 'blue');
    const dark = inkMask(img, 'dark');
    expect(blue.getRegion(new cv.Rect(110, 10, 51, 51)).countNonZero()).toBe(51 * 51);
    expect(blue.countNonZero()).toBe(51 * 51);
    expect(dark.getRegion(new cv.Rect(10, 10, 51, 51)).countNonZero()).toBe(51 * 51);
    expect(dark.countNonZero()).toBe(51 * 51);
  });
});
