import { describe, expect, it } from 'vitest';
import { cv } from '../cv.js';
import { assessQuality, HINTS } from './quality.js';
import { makeDesk, makePhoto, type PhotoOptions } from './testing.js';

describe('assessQuality', () => {
  const good: [string, Partial<PhotoOptions>][] = [
    ['a well-placed page', { desk: 'wood', areaRatio: 0.7 }],
    ['a rotated page seen in perspective, lit unevenly', { desk: 'dark', rotationDeg: 12, keystone: 0.15, areaRatio: 0.5, falloff: 0.6 }],
    ['a slightly blurred, noisy JPEG', { desk: 'pattern', areaRatio: 0.6, blurSigma: 1.5, noiseSigma: 4, jpegQuality: 70 }],
    ['a page filling 90 % of a 1280×720 frame', { frameHeight: 720, areaRatio: 0.9, desk: 'dark' }],
  ];
  for (const [name, opts] of good) {
    it(`passes ${name}`, () => {
      const q = assessQuality(makePhoto(opts).image);
      expect(q.issue, JSON.stringify(q.metrics)).toBeUndefined();
      expect(q.ok).toBe(true);
      expect(q.hint).toBeUndefined();
      expect(q.quad).toBeDefined();
      expect(q.metrics.pageAreaRatio).toBeGreaterThan(0.4);
    });
  }

  const bad: [string, Partial<PhotoOptions> | 'empty desk', keyof typeof HINTS, string][] = [
    ['an empty desk', 'empty desk', 'no_page', '我没看到作业本，把它放在灯下面吧'],
    ['a page far away in a corner', { areaRatio: 0.1, centre: [0.25, 0.3] }, 'no_page', '我没看到作业本，把它放在灯下面吧'],
    ['a dark room', { exposure: 0.3, desk: 'wood' }, 'too_dark', '太暗了，把灯调亮一点'],
    ['glare that washes the page out', { glare: 150, desk: 'dark' }, 'too_bright', '太亮了，反光看不清'],
    ['a shaken camera', { blurSigma: 4, desk: 'wood' }, 'blurry', '有点模糊，拿稳别动哦'],
    ['a page held too close', { areaRatio: 1.6, desk: 'dark' }, 'too_close', '离远一点，让我看到整页'],
    ['a page turned 35°', { rotationDeg: 35, areaRatio: 0.35, desk: 'dark' }, 'tilted', '放正一点'],
    ['a page seen very obliquely', { keystone: 0.6, areaRatio: 0.4, desk: 'dark' }, 'tilted', '放正一点'],
  ];
  for (const [name, opts, issue, hint] of bad) {
    it(`says ${issue} for ${name}`, () => {
      const img = opts === 'empty desk' ? makeDesk('wood', 1280, 960, 5) : makePhoto(opts).image;
      const q = assessQuality(img);
      expect(q.issue, JSON.stringify(q.metrics)).toBe(issue);
      expect(q.ok).toBe(false);
      expect(q.hint).toBe(hint);
    });
  }

  it('does not take clean white paper with black print for glare', () => {
    const q = assessQuality(makePhoto({ exposure: 1.3, desk: 'dark' }).image);
    expect(q.metrics.clippedRatio).toBeGreaterThan(0.5);
    expect(q.ok, JSON.stringify(q.metrics)).toBe(true);
  });

  it('says too_dark, not no_page, when the whole frame is nearly black', () => {
    const q = assessQuality(new cv.Mat(960, 1280, cv.CV_8UC3, [12, 12, 12]));
    expect(q.issue).toBe('too_dark');
  });

  it('ranks sharper photos of the same page higher', () => {
    const s = [0, 1.5, 3].map((blurSigma) => assessQuality(makePhoto({ blurSigma, desk: 'wood' }).image).metrics);
    expect(s[0]!.sharpness).toBeGreaterThan(s[1]!.sharpness);
    expect(s[1]!.sharpness).toBeGreaterThan(s[2]!.sharpness);
    expect(s[0]!.sharpnessNorm).toBeGreaterThan(s[1]!.sharpnessNorm);
    expect(s[1]!.sharpnessNorm).toBeGreaterThan(s[2]!.sharpnessNorm);
  });
});
