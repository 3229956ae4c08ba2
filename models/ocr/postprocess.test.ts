import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { caught } from '../../test/helpers/caught.js';
import { ctcDecode, type DecodedChar } from './ctc.js';
import { dbBoxes, DB_DEFAULTS } from './db-postprocess.js';
import { detectorSize } from './detect.js';
import { readingOrder } from './layout.js';
import { mergeRowNeighbours } from './merge.js';
import { halfWidth, loadDictionary } from './model-files.js';

const KEYS = path.join(import.meta.dirname, '..', '..', 'node_modules', '@gutenye', 'ocr-models', 'assets', 'ppocr_keys_v1.txt');

/** Probabilities for a sequence of classes, one step each, `p` on the chosen class. */
function steps(classes: number, seq: number[], p = 0.9): Float32Array {
  const out = new Float32Array(seq.length * classes).fill((1 - p) / (classes - 1));
  seq.forEach((c, t) => (out[t * classes + c] = p));
  return out;
}

describe('CTC decoding', () => {
  const dict = ['', '1', '2', '+', ' '];

  it('collapses repeats, drops blanks, keeps a repeat that a blank separates', () => {
    const r = ctcDecode(steps(5, [0, 1, 1, 0, 1, 3, 3, 0, 2, 0]), 0, 10, 5, dict, 4, 40);
    expect(r.text).toBe('11+2');
    expect(r.chars).toHaveLength(4);
  });

  it('scores a line by the mean and the minimum of its characters', () => {
    const probs = steps(5, [1, 0, 2]);
    probs[2 * 5 + 2] = 0.5;
    const r = ctcDecode(probs, 0, 3, 5, dict, 4, 12);
    expect(r.confidence).toBeCloseTo(0.7, 5);
    expect(r.minCharConfidence).toBeCloseTo(0.5, 5);
  });

  it('trims spaces at the ends and keeps them inside, so text is its characters joined', () => {
    const r = ctcDecode(steps(5, [4, 1, 4, 2, 4]), 0, 5, 5, dict, 10, 50);
    expect(r.text).toBe('1 2');
    expect(r.chars.map((c) => c.text).join('')).toBe(r.text);
  });

  it('does not let a doubtful space lower the confidence of the digits', () => {
    const probs = steps(5, [1, 4, 2]);
    probs[1 * 5 + 4] = 0.4;
    const r = ctcDecode(probs, 0, 3, 5, dict, 4, 12);
    expect(r.text).toBe('1 2');
    expect(r.confidence).toBeCloseTo(0.9, 5);
    expect(r.minCharConfidence).toBeCloseTo(0.9, 5);
  });

  it('gives characters non-overlapping cells around their spikes, inside the crop', () => {
    // spikes at steps 2, 4 and 12 (4 px a step): the last one is after a wide gap
    const r = ctcDecode(steps(5, [0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0]), 0, 14, 5, dict, 4, 56);
    const [a, b, c] = r.chars as [DecodedChar, DecodedChar, DecodedChar];
    expect(a.x0).toBeGreaterThanOrEqual(0);
    expect(a.x1).toBeLessThanOrEqual(b.x0);
    expect(b.x1).toBeLessThanOrEqual(c.x0);
    expect(c.x1).toBeLessThanOrEqual(56);
    expect(c.x0 - b.x1).toBeGreaterThan(16); // the gap stays a gap
    expect((c.x0 + c.x1) / 2).toBeCloseTo(50, 5);
  });

  it("keeps each character's second choice from the step it was surest of, never the blank", () => {
    // "1" over two steps: at the first "2" is second, at the surer second step "+"; the blank
    // is more probable than either but is no character.
    const probs = new Float32Array(2 * 5);
    probs.set([0.3, 0.5, 0.15, 0.05, 0], 0);
    probs.set([0.25, 0.6, 0.05, 0.1, 0], 5);
    const r = ctcDecode(probs, 0, 2, 5, dict, 4, 8);
    expect(r.chars).toMatchObject([{ text: '1', runnerUp: '+' }]);
  });

  it("counts the dictionary's other forms of a character towards its confidence, and does not offer them as its second choice", () => {
    // "(" twice in the dictionary (its full-width form read as ASCII), and "④" for "4".
    const forms = ['', '(', '(', '4', '④', '+'];
    const probs = new Float32Array(2 * 6);
    probs.set([0.1, 0.35, 0.3, 0, 0, 0.25], 0);
    probs.set([0.2, 0, 0, 0.35, 0.3, 0.15], 6);
    const r = ctcDecode(probs, 0, 2, 6, forms, 4, 8);
    expect(r.text).toBe('(4');
    expect(r.chars[0]).toMatchObject({ text: '(', runnerUp: '+' });
    expect(r.chars[0]?.confidence).toBeCloseTo(0.65, 5);
    expect(r.chars[1]).toMatchObject({ text: '4', runnerUp: '+' });
    expect(r.chars[1]?.confidence).toBeCloseTo(0.65, 5);
  });

  it('notes how surely a point it did not read stood before a character: a blurred decimal point', () => {
    // "1", then blank steps where "." (and its full-width form) had some probability, then "4".
    const forms = ['', '1', '4', '.', '．'];
    const probs = new Float32Array(4 * 5);
    probs.set([0.1, 0.9, 0, 0, 0], 0);
    probs.set([0.8, 0, 0, 0.1, 0.1], 5);
    probs.set([0.9, 0, 0, 0.05, 0], 10);
    probs.set([0.1, 0, 0.9, 0, 0], 15);
    const r = ctcDecode(probs, 0, 4, 5, forms, 4, 16);
    expect(r.text).toBe('14');
    expect(r.chars[0]).not.toHaveProperty('pointBefore');
    expect(r.chars[1]?.pointBefore).toBeCloseTo(0.2, 5);
    // A point it read is a character, not a point before the next one.
    probs.set([0.3, 0, 0, 0.7, 0], 5);
    const read = ctcDecode(probs, 0, 4, 5, forms, 4, 16);
    expect(read.text).toBe('1.4');
    expect(read.chars[2]?.pointBefore).toBeCloseTo(0.05, 5);
  });

  it('reads an all-blank line as empty with confidence 0', () => {
    expect(ctcDecode(steps(5, [0, 0, 0]), 0, 3, 5, dict, 4, 12)).toEqual({ text: '', confidence: 0, minCharConfidence: 0, chars: [] });
  });
});

describe('recognition dictionary', () => {
  it('is blank, then every line of ppocr_keys_v1.txt, then a space: 6625 classes', () => {
    const dict = loadDictionary(KEYS, 6625);
    expect(dict).toHaveLength(6625);
    expect(dict[0]).toBe('');
    expect(dict.at(-1)).toBe(' ');
    expect(dict.slice(1, 40)).toContain('0');
    expect(dict).toContain('×');
    expect(dict).toContain('÷');
  });

  it('refuses a dictionary that does not fit the model', () => {
    expect(isLampError(caught(() => loadDictionary(KEYS, 6626)), ErrorCode.MODEL_CORRUPT)).toBe(true);
  });

  it('turns full-width digits and signs into ASCII, and leaves Chinese punctuation', () => {
    expect(halfWidth('（１２＋３）＝１５')).toBe('(12+3)=15');
    expect(halfWidth('还剩几个？，')).toBe('还剩几个？，');
  });
});

describe('detection geometry', () => {
  it('sizes the detector input to multiples of 32 with the long side limited', () => {
    expect(detectorSize(1280, 960, 960)).toEqual({ w: 960, h: 736 });
    expect(detectorSize(1280, 960, 640)).toEqual({ w: 640, h: 480 });
    expect(detectorSize(100, 20, 960)).toEqual({ w: 96, h: 32 });
  });

  it('finds a grown rectangle around a block of high probability and scores it', () => {
    const w = 100, h = 40, prob = new Float32Array(w * h);
    for (let y = 15; y < 25; y++) for (let x = 20; x < 80; x++) prob[y * w + x] = 0.95;
    const [box, ...more] = dbBoxes(prob, w, h, 200, 80);
    expect(more).toHaveLength(0);
    expect(box?.score).toBeGreaterThan(0.6);
    // kernel 60×10 map px; unclip d = 600·1.5/140 ≈ 6.4 px; ×2 to source pixels
    const xs = (box?.quad ?? []).map((p) => p[0]), ys = (box?.quad ?? []).map((p) => p[1]);
    expect(Math.min(...xs)).toBeCloseTo(2 * (20 - 6.4), -1);
    expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(2 * 10 + 20);
    expect(Math.max(...ys) - Math.min(...ys)).toBeLessThan(2 * 10 + 30);
  });

  it('drops faint regions and specks', () => {
    const w = 100, h = 40, prob = new Float32Array(w * h);
    for (let y = 15; y < 25; y++) for (let x = 20; x < 80; x++) prob[y * w + x] = 0.45; // above thresh, below box thresh
    prob[5 * w + 5] = 1; // one pixel
    expect(dbBoxes(prob, w, h, 100, 40, DB_DEFAULTS)).toEqual([]);
  });
});

describe('rows and reading order', () => {
  const box = (x: number, y: number, w: number, h: number) => ({ quad: [[x, y], [x + w, y], [x + w, y + h], [x, y + h]] as [number, number][], score: 0.9 });

  it('joins an answer written a little after its problem, not the next column', () => {
    const merged = mergeRowNeighbours([box(60, 110, 150, 28), box(230, 112, 30, 24), box(350, 110, 150, 28)], 1);
    expect(merged).toHaveLength(2);
    const xs = merged.map((m) => [Math.min(...m.quad.map((p) => p[0])), Math.max(...m.quad.map((p) => p[0]))]).sort((a, b) => (a[0] as number) - (b[0] as number));
    expect(xs[0]?.[0]).toBeCloseTo(60, -1);
    expect(xs[0]?.[1]).toBeCloseTo(260, -1);
    expect(xs[1]?.[0]).toBeCloseTo(350, -1);
  });

  it('does not join lines of different rows', () => {
    expect(mergeRowNeighbours([box(60, 110, 150, 28), box(215, 150, 100, 28)], 1)).toHaveLength(2);
  });

  it('orders row by row, left to right, with uneven baselines in a row', () => {
    const lines = [
      { t: 'b', box: { x: 300, y: 104, w: 100, h: 28 } },
      { t: 'c', box: { x: 60, y: 180, w: 100, h: 28 } },
      { t: 'a', box: { x: 60, y: 112, w: 100, h: 28 } },
    ];
    expect(readingOrder(lines).map((l) => l.t)).toEqual(['a', 'b', 'c']);
  });
});
