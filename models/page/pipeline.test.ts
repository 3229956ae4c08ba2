import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cv } from '../cv.js';
import { preparePage } from './pipeline.js';
import { makePhoto } from './testing.js';

describe('preparePage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lamp-page-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A realistic photo: rotated, in perspective, lit from one side, slightly blurred, noisy, JPEG.
  const photo = makePhoto(
    { desk: 'wood', rotationDeg: 9, keystone: 0.12, areaRatio: 0.55, falloff: 0.6, blurSigma: 1, noiseSigma: 3, jpegQuality: 80, seed: 21 },
    { rows: 6, cols: 3, ruled: true, contentAngleDeg: 1.5 },
  );

  it('turns a photo into a flat, clean colour page cut into lines and problems', async () => {
    const r = await preparePage(photo.buffer, { dumpDir: dir });
    expect(r.ok, JSON.stringify(r.quality)).toBe(true);
    if (!r.ok) return;
    expect(r.page.channels).toBe(3);
    expect(Math.max(r.page.cols, r.page.rows)).toBe(1280);
    expect(r.lines).toHaveLength(6);
    expect(r.regions).toHaveLength(18);
    expect(Math.abs(r.deskewDeg - 1.5)).toBeLessThan(0.5);
    for (const k of ['decode', 'quality', 'rectify', 'deskew', 'enhance', 'slice', 'total'] as const) expect(r.timingsMs[k]).toBeGreaterThan(0);
    expect(r.timingsMs.total).toBeGreaterThanOrEqual(r.timingsMs.quality + r.timingsMs.enhance);
  });

  it('maps every problem region back onto that problem in the photo', async () => {
    const r = await preparePage(photo.buffer);
    if (!r.ok) throw new Error('expected a page');
    const diag = Math.hypot(photo.quad[2][0] - photo.quad[0][0], photo.quad[2][1] - photo.quad[0][1]);
    r.regions.forEach((reg, i) => {
      // The region's left-middle point is the start of the printed problem.
      const [sx, sy] = r.toSource(reg.x, reg.y + reg.h / 2);
      const p = photo.problems[i]!;
      const [tx, ty] = photo.toPhoto(p.x, p.y + p.h / 2);
      expect(Math.hypot(sx - tx, sy - ty) / diag, `region ${i}`).toBeLessThan(0.015);
    });
  });

  it('writes every intermediate image when asked', () => {
    const files = readdirSync(dir).sort();
    expect(files).toEqual(['00-quality.json', '01-input.jpg', '02-quad.jpg', '03-warped.jpg', '04-deskewed.jpg', '05-denoised.jpg', '06-normalised.jpg', '07-ink.png', '08-slices.jpg']);
    expect(cv.imread(join(dir, '06-normalised.jpg')).cols).toBe(1280);
  });

  it('returns early with the hint and no page when the photo is not good enough', async () => {
    const dark = makePhoto({ exposure: 0.3 });
    const r = await preparePage(dark.buffer);
    expect(r.ok).toBe(false);
    expect(r.quality.issue).toBe('too_dark');
    expect(r.quality.hint).toBe('太暗了，把灯调亮一点');
    expect(r.page).toBeUndefined();
    expect(r.timingsMs.rectify).toBe(0);
  });

  it('with skipQuality, takes a flat scan with no desk around it as the whole page', async () => {
    const r = await preparePage(photo.flat, { skipQuality: true });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.regions).toHaveLength(18);
    // The whole 1200×900 scan became the 1280×960 page (then deskewed about its centre).
    const [x, y] = r.toSource(r.page.cols / 2, r.page.rows / 2);
    expect(Math.hypot(x - photo.flat.cols / 2, y - photo.flat.rows / 2)).toBeLessThan(3);
  });
});
