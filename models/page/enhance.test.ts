import { describe, expect, it } from 'vitest';
import { cv, type Mat } from '../cv.js';
import { denoise, normaliseContrast } from './enhance.js';
import { inkMask } from './ink.js';
import { addNoise, applyLight, makeFlatPage } from './testing.js';

function meanGray(img: Mat, x: number, y: number, w: number, h: number): number {
  return (img.getRegion(new cv.Rect(x, y, w, h)).bgrToGray().meanStdDev().mean.getDataAsArray() as number[][])[0]![0]!;
}

describe('normaliseContrast', () => {
  const { flat, problems } = makeFlatPage({ rows: 6, cols: 3, answerEvery: 1 }, 7);
  // Light falls off to 45 % across the page, like a lamp at one side.
  const lit = applyLight(flat, 1, 0.45);

  it('evens out the light: blank paper on the dim side comes up to the bright side', () => {
    const before = meanGray(lit, 10, 10, 40, 40) - meanGray(lit, lit.cols - 50, 10, 40, 40);
    const out = normaliseContrast(lit);
    const after = meanGray(out, 10, 10, 40, 40) - meanGray(out, out.cols - 50, 10, 40, 40);
    expect(before).toBeGreaterThan(80);
    expect(Math.abs(after)).toBeLessThan(8);
    expect(meanGray(out, out.cols - 50, 10, 40, 40)).toBeGreaterThan(240);
  });

  it('keeps print dark and blue answers blue, also on the dim side', () => {
    const out = normaliseContrast(lit);
    const blue = inkMask(out, 'blue');
    const dark = inkMask(out, 'dark');
    const last = problems[problems.length - 1]!; // right-hand column: the dimmest
    const rect = new cv.Rect(last.x, last.y - 6, last.w, last.h + 14);
    // The printed part comes first; the blue answer is not taken for print, nor the print for blue ink.
    const printOnly = new cv.Rect(last.x, last.y - 6, Math.round(last.w * 0.45), last.h + 14);
    expect(blue.getRegion(rect).countNonZero()).toBeGreaterThan(150);
    expect(dark.getRegion(printOnly).countNonZero()).toBeGreaterThan(100);
    expect(blue.getRegion(printOnly).countNonZero()).toBeLessThan(10);
  });

  it('keeps the page size and colour format', () => {
    const out = normaliseContrast(lit);
    expect([out.cols, out.rows, out.channels]).toEqual([lit.cols, lit.rows, 3]);
  });
});

describe('denoise', () => {
  it('reduces noise on blank paper without moving the paper level', () => {
    const paper = new cv.Mat(200, 300, cv.CV_8UC3, [220, 235, 245]);
    const noisy = addNoise(paper, 8, 3);
    const sd = (m: Mat): number => (m.bgrToGray().meanStdDev().stddev.getDataAsArray() as number[][])[0]![0]!;
    const out = denoise(noisy);
    expect(sd(out)).toBeLessThan(sd(noisy) * 0.6);
    expect(Math.abs(meanGray(out, 0, 0, 300, 200) - meanGray(paper, 0, 0, 300, 200))).toBeLessThan(2);
  });
});
