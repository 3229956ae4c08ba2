import { describe, expect, it } from 'vitest';
import { collectGarbage, cv } from './cv.js';

describe('OpenCV as the lamp loads it', () => {
  it('does not report Mat memory to V8 (a Mat freed by the collector would start a collection inside it and hang)', () => {
    expect(cv.isCustomMatAllocatorEnabled()).toBe(false);
  });

  it('frees unreferenced Mats when asked: the pixels of 16 images do not stay allocated', () => {
    const rss = (): number => process.memoryUsage().rss;
    collectGarbage();
    const before = rss();
    // 16 × 3 MB, filled so the pages are really resident, and dropped at once.
    for (let i = 0; i < 16; i++) new cv.Mat(1024, 1024, cv.CV_8UC3, [i, 100, 200]);
    const filled = rss();
    collectGarbage();
    expect(filled - before).toBeGreaterThan(30e6);
    expect(rss() - before).toBeLessThan(0.5 * (filled - before));
  });
});
