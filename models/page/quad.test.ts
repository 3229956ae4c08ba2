import { describe, expect, it } from 'vitest';
import { findPageQuad, orderCorners, quadRotationDeg } from './quad.js';
import { cornerError, makeDesk, makePhoto, type PhotoOptions } from './testing.js';

describe('findPageQuad', () => {
  const cases: [string, Partial<PhotoOptions>][] = [
    ['straight on a wooden desk', { desk: 'wood', areaRatio: 0.7 }],
    ['rotated 12° with perspective on a dark desk', { desk: 'dark', rotationDeg: 12, keystone: 0.15, areaRatio: 0.5 }],
    ['rotated −15° on a patterned cloth, lit from one side', { desk: 'pattern', rotationDeg: -15, keystone: 0.1, areaRatio: 0.5, falloff: 0.6 }],
    ['on a light desk, dim on one side', { desk: 'light', rotationDeg: 8, areaRatio: 0.6, falloff: 0.7 }],
    // Otsu alone cuts the shaded corner off (corners 35–45 % of the diagonal away).
    ['with a deep shadow over one corner, on a dark desk', { desk: 'dark', rotationDeg: 10, keystone: 0.1, areaRatio: 0.6, shadow: 0.45 }],
    ['with a deep shadow over one corner, on a wooden desk', { desk: 'wood', rotationDeg: -8, areaRatio: 0.65, shadow: 0.5 }],
    ['blurred, noisy and heavily compressed', { desk: 'wood', rotationDeg: -6, areaRatio: 0.55, blurSigma: 2, noiseSigma: 5, jpegQuality: 55 }],
    ['in a 1280×720 frame', { frameHeight: 720, areaRatio: 0.6, rotationDeg: 5, keystone: 0.1 }],
    ['off-centre and small', { centre: [0.35, 0.45], areaRatio: 0.3, rotationDeg: 3 }],
  ];
  for (const [name, opts] of cases) {
    it(`finds the corners within 1.5 % of the page diagonal: ${name}`, () => {
      const photo = makePhoto(opts);
      const quad = findPageQuad(photo.image);
      expect(quad).toBeDefined();
      expect(cornerError(quad!, photo.quad)).toBeLessThan(0.015);
    });
  }

  it('finds no page on an empty desk', () => {
    for (const desk of ['wood', 'dark', 'pattern', 'light'] as const) {
      expect(findPageQuad(makeDesk(desk, 1280, 960, 3)), desk).toBeUndefined();
    }
  });
});

describe('corner order', () => {
  it('orders any four corners TL, TR, BR, BL', () => {
    expect(orderCorners([[90, 95], [10, 10], [12, 88], [100, 5]])).toEqual([[10, 10], [100, 5], [90, 95], [12, 88]]);
  });

  it('reads a quad rotated 10° counter-clockwise as +10°', () => {
    const a = (10 * Math.PI) / 180;
    const rot = (x: number, y: number): [number, number] => [x * Math.cos(a) + y * Math.sin(a), -x * Math.sin(a) + y * Math.cos(a)];
    expect(quadRotationDeg([rot(0, 0), rot(100, 0), rot(100, 80), rot(0, 80)])).toBeCloseTo(10, 5);
  });
});
