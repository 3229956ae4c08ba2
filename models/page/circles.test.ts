import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../runtime/paths.js';
import { cv, type Mat } from '../cv.js';
import { comparisonRings, eraseComparisonCircles, findComparisonCircles, guessCircleSign, readCircleSign } from './circles.js';
import { preparePage } from './pipeline.js';

/** White paper with a comparison circle holding `sign` at (100, 60), and a bold digit 0 at (220, 60). */
function drawn(sign: '>' | '<' | '=' | ''): ReturnType<typeof cv.Mat.prototype.copy> {
  const m = new cv.Mat(120, 320, cv.CV_8UC3, [255, 255, 255]);
  const ink = new cv.Vec3(60, 60, 60);
  m.drawCircle(new cv.Point2(100, 60), 18, ink, 2, cv.LINE_AA);
  const p = (x: number, y: number) => new cv.Point2(x, y);
  if (sign === '=') {
    m.drawLine(p(92, 55), p(108, 55), new cv.Vec3(150, 60, 20), 2);
    m.drawLine(p(92, 65), p(108, 65), new cv.Vec3(150, 60, 20), 2);
  } else if (sign !== '') {
    const [a, b] = sign === '>' ? [92, 108] : [108, 92];
    m.drawLine(p(a, 52), p(b, 60), new cv.Vec3(150, 60, 20), 2);
    m.drawLine(p(b, 60), p(a, 68), new cv.Vec3(150, 60, 20), 2);
  }
  m.drawEllipse(new cv.RotatedRect(p(220, 60), new cv.Size(22, 34), 0), new cv.Vec3(20, 20, 20), 5);
  return m;
}

describe('comparison circles', () => {
  it.each(['>', '<', '='] as const)('finds the ring (not the bold 0) and reads %s inside it', (sign) => {
    const page = drawn(sign);
    const circles = findComparisonCircles(page);
    expect(circles).toHaveLength(1);
    expect(circles[0]?.x).toBeCloseTo(100, -1);
    expect(readCircleSign(page, circles[0] as (typeof circles)[number])).toBe(sign);
  });

  it('a ring whose sign reaches up to it is crowded, not sure; a bold 0 is neither', () => {
    const m = drawn('');
    const p = (x: number, y: number) => new cv.Point2(x, y);
    // A big ">" whose arms end just inside the ring.
    m.drawLine(p(87, 47), p(114, 60), new cv.Vec3(150, 60, 20), 6);
    m.drawLine(p(114, 60), p(87, 73), new cv.Vec3(150, 60, 20), 6);
    const rings = comparisonRings(m);
    expect(rings.sure).toHaveLength(0);
    expect(rings.crowded.map((c) => Math.round(c.x / 10) * 10)).toEqual([100]);
    expect(comparisonRings(drawn('>'))).toMatchObject({ sure: [expect.anything()], crowded: [] });
  });

  it('a faint ring found off its centre is a ring to be confirmed by a gap in the text; so is a handwritten 0 — never a sure circle', () => {
    // Flattened-page crops of hard synthetic page 11805 ("33○70", a thin grey ring with a blue
    // "<") and easy page 11848 ("-5=40", the 0 written in a handwriting font).
    const fixture = (name: string): Mat => cv.imread(path.join(projectRoot(), 'test', 'fixtures', 'homework', name));
    const faint = comparisonRings(fixture('faint-ring.png'));
    expect(faint.sure).toEqual([]);
    expect(faint.crowded).toHaveLength(1);
    expect(faint.crowded[0]).toMatchObject({ x: expect.closeTo(75, -0.5), y: expect.closeTo(45, -0.5), r: expect.closeTo(15.5, -0.5) });
    // The 0 passes for a ring only with its centre moved: crowded, and after an "=" no gap confirms it (see circlesInGaps).
    expect(comparisonRings(fixture('written-zero.png'))).toMatchObject({ sure: [], crowded: [{ x: expect.closeTo(87.5, 0), y: expect.closeTo(41.5, 0) }] });
  });

  it("a ring much smaller than the page's other circles is a digit (a thin 0), not a circle", () => {
    const m = new cv.Mat(120, 440, cv.CV_8UC3, [255, 255, 255]);
    for (const x of [60, 160, 260]) m.drawCircle(new cv.Point2(x, 60), 19, new cv.Vec3(60, 60, 60), 2, cv.LINE_AA);
    m.drawCircle(new cv.Point2(370, 60), 13, new cv.Vec3(60, 60, 60), 2, cv.LINE_AA);
    expect(findComparisonCircles(m).map((c) => Math.round(c.x / 10) * 10).sort((a, b) => a - b)).toEqual([60, 160, 260]);
    // So is one 0.8 of their size (a printed 0 of r 15.2 beside circles of 19.6 and 20.3, easy page 12791).
    const near = new cv.Mat(120, 440, cv.CV_8UC3, [255, 255, 255]);
    for (const x of [60, 160, 260]) near.drawCircle(new cv.Point2(x, 60), 19, new cv.Vec3(60, 60, 60), 2, cv.LINE_AA);
    near.drawCircle(new cv.Point2(370, 60), 15, new cv.Vec3(60, 60, 60), 2, cv.LINE_AA);
    expect(findComparisonCircles(near).map((c) => Math.round(c.x / 10) * 10).sort((a, b) => a - b)).toEqual([60, 160, 260]);
    // Alone, the small ring is a circle: there is no page size to compare with.
    const alone = new cv.Mat(120, 200, cv.CV_8UC3, [255, 255, 255]);
    alone.drawCircle(new cv.Point2(100, 60), 13, new cv.Vec3(60, 60, 60), 2, cv.LINE_AA);
    expect(findComparisonCircles(alone)).toHaveLength(1);
  });

  it("a ring in the pen's blue is the child's 0, not a printed circle; on a grey page nothing tells them apart", () => {
    const m = new cv.Mat(120, 320, cv.CV_8UC3, [255, 255, 255]);
    m.drawCircle(new cv.Point2(100, 60), 18, new cv.Vec3(60, 60, 60), 2, cv.LINE_AA);
    m.drawCircle(new cv.Point2(220, 60), 18, new cv.Vec3(150, 60, 20), 2, cv.LINE_AA);
    expect(comparisonRings(m)).toMatchObject({ sure: [{ x: expect.closeTo(100, -1) }], crowded: [] });
    expect(comparisonRings(m.bgrToGray()).sure).toHaveLength(2);
  });

  it('an empty circle is a blank, not an unread sign', () => {
    const page = drawn('');
    const [circle] = findComparisonCircles(page);
    expect(circle).toBeDefined();
    expect(readCircleSign(page, circle as NonNullable<typeof circle>)).toBe('');
  });

  it('reads "=" whose two bars blur has joined into one blob', () => {
    // A small "=" (bars 6 px apart): at this blur the bars are one component at the Otsu
    // threshold, with lighter paper between them.
    const page = drawn('');
    const [circle] = findComparisonCircles(page);
    const bar = (y: number) => page.drawLine(new cv.Point2(94, y), new cv.Point2(106, y), new cv.Vec3(150, 60, 20), 2);
    bar(57);
    bar(63);
    const blur = (m: typeof page) => m.gaussianBlur(new cv.Size(0, 0), 1.8);
    expect(readCircleSign(blur(page), circle as NonNullable<typeof circle>)).toBe('=');
    expect(readCircleSign(blur(drawn('>')), circle as NonNullable<typeof circle>)).toBe('>');
    expect(readCircleSign(blur(drawn('<')), circle as NonNullable<typeof circle>)).toBe('<');
  });

  it('guesses a sign blurred into a blob from how its ink is spread', () => {
    const circle = { x: 100, y: 60, r: 18 };
    const blur = (m: Mat) => m.gaussianBlur(new cv.Size(0, 0), 3);
    expect(guessCircleSign(blur(drawn('>')), circle)).toBe('>');
    expect(guessCircleSign(blur(drawn('<')), circle)).toBe('<');
    // A printed "=" is about as wide as its bars are apart.
    const equals = drawn('');
    for (const y of [56, 64]) equals.drawLine(new cv.Point2(93, y), new cv.Point2(107, y), new cv.Vec3(150, 60, 20), 2);
    expect(guessCircleSign(blur(equals), circle)).toBe('=');
    // An empty circle has nothing to guess from.
    expect(guessCircleSign(drawn(''), circle)).toBeUndefined();
    // Bars closing a little to the right lean like a faint ">", but ink as wide as an "=" may be
    // one (a blurred "=" on a hard page): no guess.
    const leaning = drawn('');
    leaning.drawLine(new cv.Point2(93, 55), new cv.Point2(107, 58), new cv.Vec3(150, 60, 20), 2);
    leaning.drawLine(new cv.Point2(93, 65), new cv.Point2(107, 62), new cv.Vec3(150, 60, 20), 2);
    expect(guessCircleSign(blur(leaning), circle)).toBeUndefined();
  });

  it('erasing paints the ring white and keeps the sign', () => {
    const page = drawn('>');
    const circles = findComparisonCircles(page);
    const erased = eraseComparisonCircles(page, circles);
    expect(findComparisonCircles(erased)).toHaveLength(0);
    expect(readCircleSign(erased, circles[0] as (typeof circles)[number])).toBe('>'); // the sign is still there
  });

  it('on photographed pages: both circles of easy-1 hold "=", medium-33 holds "<" then ">"', async () => {
    const read = async (name: string): Promise<string[]> => {
      const r = await preparePage(readFileSync(path.join(projectRoot(), 'test', 'fixtures', 'homework', name)));
      if (!r.page) throw new Error('quality gate refused a fixture');
      const page = r.page;
      return findComparisonCircles(page)
        .sort((a, b) => a.y - b.y)
        .map((c) => readCircleSign(page, c) ?? '?');
    };
    expect(await read('easy-1.jpg')).toEqual(['=', '=']);
    expect(await read('medium-33.jpg')).toEqual(['<', '>']);
  });
});
