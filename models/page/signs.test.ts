import { describe, expect, it } from 'vitest';
import { cv, type Mat } from '../cv.js';
import { hasDotsAboveAndBelow, isBareBar, isDiagonalCross, lacksCrossing, SIGN_WINDOW, signWindow } from './signs.js';

type Sign = '+' | '-' | '÷' | '×';

/** A printed line "0 ? 0" on white paper: a bold 0 each side (strokes 4 px, the sign 2 px) and the sign at x 60–76; the line box is 40 px high. */
function line(sign: Sign, blur: number): Mat {
  const m = new cv.Mat(60, 140, cv.CV_8UC3, [255, 255, 255]);
  const ink = new cv.Vec3(40, 40, 40);
  const p = (x: number, y: number) => new cv.Point2(x, y);
  for (const x of [25, 115]) m.drawEllipse(new cv.RotatedRect(p(x, 30), new cv.Size(16, 26), 0), ink, 4);
  if (sign === '×') {
    m.drawLine(p(62, 24), p(74, 36), ink, 2);
    m.drawLine(p(62, 36), p(74, 24), ink, 2);
  } else m.drawLine(p(60, 30), p(76, 30), ink, 2);
  if (sign === '+') m.drawLine(p(68, 22), p(68, 38), ink, 2);
  if (sign === '÷') {
    m.drawCircle(p(68, 23), 1, ink, -1);
    m.drawCircle(p(68, 37), 1, ink, -1);
  }
  return blur > 0 ? m.gaussianBlur(new cv.Size(0, 0), blur) : m;
}

const box = { x: 5, y: 10, w: 130, h: 40 };
const at = (sign: Sign, blur: number) => [line(sign, blur), box, 60, 76] as const;

describe('operator signs in the ink', () => {
  it('a ÷ has a dot above and below its bar; a + and a - do not', () => {
    expect(hasDotsAboveAndBelow(...at('÷', 0))).toBe(true);
    expect(hasDotsAboveAndBelow(...at('+', 0))).toBe(false);
    expect(hasDotsAboveAndBelow(...at('-', 0))).toBe(false);
  });

  it('a blurred + is darkest where its strokes cross; a ÷ read as + has no crossing', () => {
    for (const blur of [1.2, 1.6]) {
      expect(lacksCrossing(...at('+', blur))).toBe(false);
      expect(lacksCrossing(...at('÷', blur))).toBe(true);
      expect(lacksCrossing(...at('-', blur))).toBe(true);
    }
  });

  it('a - is a bare bar; a blurred ÷ keeps grey where its dots were, and a + is no bar', () => {
    expect(isBareBar(...at('-', 1.2))).toBe(true);
    expect(isBareBar(...at('÷', 1.2))).toBe(false);
    expect(isBareBar(...at('+', 1.2))).toBe(false);
  });

  it('a × is a cross of diagonals, a + is not', () => {
    for (const blur of [0, 0.8]) {
      expect(isDiagonalCross(...at('×', blur))).toBe(true);
      expect(isDiagonalCross(...at('+', blur))).toBe(false);
    }
  });

  it('tells nothing on a faint, washed-out line', () => {
    const faint = line('-', 1).convertTo(cv.CV_8UC3, 0.15, 215);
    expect(isBareBar(faint, box, 60, 76)).toBe(false);
    expect(lacksCrossing(faint, box, 60, 76)).toBe(false);
  });

  it("centres the classifier's window on the digits beside the sign, not on a handwritten answer broken into low pieces", () => {
    // "0×0" and, to the right, an answer whose two strokes blur left as marks in the lower half.
    const m = new cv.Mat(70, 240, cv.CV_8UC3, [255, 255, 255]);
    const ink = new cv.Vec3(40, 40, 40);
    const p = (x: number, y: number) => new cv.Point2(x, y);
    for (const x of [25, 115]) m.drawEllipse(new cv.RotatedRect(p(x, 30), new cv.Size(16, 26), 0), ink, 4);
    m.drawLine(p(62, 24), p(74, 36), ink, 2);
    m.drawLine(p(62, 36), p(74, 24), ink, 2);
    for (const x of [160, 180, 200]) m.drawLine(p(x, 36), p(x, 54), ink, 3);
    const window = signWindow(m, { x: 5, y: 10, w: 230, h: 48 }, 60, 76) as Float32Array;
    // The ink's weighted row in the window: the × at its middle.
    let sum = 0;
    let weight = 0;
    window.forEach((v, i) => {
      sum += v * Math.floor(i / SIGN_WINDOW);
      weight += v;
    });
    expect(Math.abs(sum / weight - (SIGN_WINDOW - 1) / 2)).toBeLessThan(1);
  });
});
