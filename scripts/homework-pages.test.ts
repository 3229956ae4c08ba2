import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cv } from '../models/cv.js';
import { launchChromium } from '../test/helpers/browser.js';
import { generate, makeSheet, type PageTruth, photographSheet } from './homework-pages/generate.js';
import type { Level } from './homework-pages/photo.js';

// ---- a tiny exact evaluator, independent of the generator: + - × ÷ / ( ) over rationals ----

type Q = [bigint, bigint];
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
const norm = ([n, d]: Q): Q => {
  if (d === 0n) throw new Error('division by zero');
  const g = gcd(n, d) || 1n;
  const s = d < 0n ? -1n : 1n;
  return [(s * n) / g, (s * d) / g];
};
const ops: Record<string, (a: Q, b: Q) => Q> = {
  '+': (a, b) => norm([a[0] * b[1] + b[0] * a[1], a[1] * b[1]]),
  '-': (a, b) => norm([a[0] * b[1] - b[0] * a[1], a[1] * b[1]]),
  '×': (a, b) => norm([a[0] * b[0], a[1] * b[1]]),
  '÷': (a, b) => norm([a[0] * b[1], a[1] * b[0]]),
};
ops['/'] = ops['÷'] as (a: Q, b: Q) => Q;

function evaluate(src: string): Q {
  let i = 0;
  const atom = (): Q => {
    if (src[i] === '(') {
      i++;
      const v = sum();
      if (src[i++] !== ')') throw new Error(`no ) in ${src}`);
      return v;
    }
    const m = /^\d+(\.\d+)?/.exec(src.slice(i));
    if (!m) throw new Error(`no number at ${i} in ${src}`);
    i += m[0].length;
    const [whole, frac = ''] = m[0].split('.') as [string, string?];
    return norm([BigInt(whole + frac), 10n ** BigInt(frac.length)]);
  };
  const product = (): Q => {
    let v = atom();
    while (src[i] === '×' || src[i] === '÷' || src[i] === '/') v = (ops[src[i++] as string] as (a: Q, b: Q) => Q)(v, atom());
    return v;
  };
  const sum = (): Q => {
    let v = product();
    while (src[i] === '+' || src[i] === '-') v = (ops[src[i++] as string] as (a: Q, b: Q) => Q)(v, product());
    return v;
  };
  const v = sum();
  if (i !== src.length) throw new Error(`trailing text in ${src}`);
  return v;
}
const same = (a: Q, b: Q) => a[0] === b[0] && a[1] === b[1];

/** What the answer to a judged item must be, worked out from its question alone. */
function expectedAnswer(kind: string, q: string): Q | string {
  if (kind === 'arithmetic') return evaluate(q.replace(/=$/, ''));
  if (kind === 'compare') {
    const [l, r] = q.split('○').map(evaluate) as [Q, Q];
    const d = ops['-']!(l, r)[0];
    return d > 0n ? '>' : d < 0n ? '<' : '=';
  }
  if (kind === 'remainder') {
    const [a, b] = q.replace(/=$/, '').split('÷').map(Number) as [number, number];
    return `${Math.floor(a / b)}……${a % b}`;
  }
  throw new Error(kind);
}

/** Every judged item's truth agrees with the evaluator; cloud items expect "uncertain". */
function checkTruth(items: PageTruth['items']): void {
  for (const it of items) {
    if (it.kind === 'non_arithmetic') {
      expect(it.verdict).toBe('uncertain');
      continue;
    }
    expect(it.question).toMatch(/^[0-9+\-×÷()○./=]+$/);
    if (it.kind === 'fill_blank') {
      expect(it.question.split('()').length).toBe(2);
      const [l, r] = it.question.replace('()', `(${it.correct_answer})`).split('=') as [string, string];
      expect(same(evaluate(l), evaluate(r)), it.question).toBe(true);
    } else {
      const want = expectedAnswer(it.kind, it.question);
      if (typeof want === 'string') expect(it.correct_answer, it.question).toBe(want);
      else expect(same(evaluate(it.correct_answer), want), `${it.question}${it.correct_answer}`).toBe(true);
    }
    if (it.blank) {
      expect(it.student_answer).toBe('');
      expect(it.verdict).toBe('incorrect');
    } else {
      expect(it.student_answer).not.toBe('');
      expect(it.verdict, `${it.question}${it.student_answer}`).toBe(it.student_answer === it.correct_answer ? 'correct' : 'incorrect');
    }
  }
}

// ---- the pages ----

const W = 1280;
const H = 960;
const CASES: [Level, number][] = [['easy', 101], ['medium', 202], ['hard', 303]];
let browser: Browser;
let dir: string;
const truths = new Map<Level, PageTruth>();

beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(path.join(tmpdir(), 'homework-pages-'));
  for (const [level, seed] of CASES) {
    await generate(browser, { out: dir, seeds: [seed], levels: [level], flat: false, bad: false });
    truths.set(level, JSON.parse(readFileSync(path.join(dir, `${level}-${seed}.json`), 'utf8')) as PageTruth);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(CASES)('a %s page (seed %i)', (level, seed) => {
  const truth = () => truths.get(level) as PageTruth;

  it('is a 1280×960 JPEG named for its level and seed', () => {
    expect(truth().image).toBe(`${level}-${seed}.jpg`);
    const img = cv.imread(path.join(dir, truth().image));
    expect([img.cols, img.rows]).toEqual([W, H]);
    expect(truth()).toMatchObject({ level, seed, width: W, height: H });
  });

  it('has 20–40 problems, plus at most two items for the cloud, every box inside the photo', () => {
    const items = truth().items;
    const grid = items.filter((x) => x.kind !== 'non_arithmetic');
    expect(grid.length).toBeGreaterThanOrEqual(20);
    expect(grid.length).toBeLessThanOrEqual(40);
    expect(items.length - grid.length).toBeLessThanOrEqual(2);
    expect(items.map((x) => x.index)).toEqual(items.map((_, k) => k + 1));
    for (const it of items) {
      for (const [x, y, w, h] of [it.bbox, it.answer_bbox]) {
        expect(w).toBeGreaterThan(0);
        expect(h).toBeGreaterThan(0);
        expect(x).toBeGreaterThanOrEqual(0);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(x + w).toBeLessThanOrEqual(W);
        expect(y + h).toBeLessThanOrEqual(H);
      }
      // the answer lies within its problem's box
      const [bx, by, bw, bh] = it.bbox;
      const [ax, ay, aw, ah] = it.answer_bbox;
      expect(ax >= bx && ay >= by && ax + aw <= bx + bw && ay + ah <= by + bh).toBe(true);
    }
  });

  it('has ground truth that an independent evaluator agrees with', () => checkTruth(truth().items));

  it('has 15–25 % wrong answers among those written, and only a few blanks', () => {
    const judged = truth().items.filter((x) => x.kind !== 'non_arithmetic');
    const written = judged.filter((x) => !x.blank);
    const share = written.filter((x) => x.verdict === 'incorrect').length / written.length;
    expect(share).toBeGreaterThanOrEqual(0.12);
    expect(share).toBeLessThanOrEqual(0.28);
    expect(judged.length - written.length).toBeLessThanOrEqual(2);
  });
});

it('the same seed gives the same ground truth and the same photo', async () => {
  const again = mkdtempSync(path.join(tmpdir(), 'homework-pages-'));
  try {
    await generate(browser, { out: again, seeds: [202], levels: ['medium'], flat: false, bad: false });
    expect(readFileSync(path.join(again, 'medium-202.json'), 'utf8')).toBe(readFileSync(path.join(dir, 'medium-202.json'), 'utf8'));
    expect(readFileSync(path.join(again, 'medium-202.jpg')).equals(readFileSync(path.join(dir, 'medium-202.jpg')))).toBe(true);
  } finally {
    rmSync(again, { recursive: true, force: true });
  }
});

it('at scale 2 the same page lies the same way in a 2560×1920 photo, its boxes twice as far out', async () => {
  const sheet = await makeSheet(browser, 303);
  const one = photographSheet(sheet, 'hard');
  const two = photographSheet(sheet, 'hard', 2);
  const img = cv.imdecode(two.jpeg);
  expect([img.cols, img.rows, two.truth.width, two.truth.height]).toEqual([2 * W, 2 * H, 2 * W, 2 * H]);
  two.truth.page.quad.forEach(([x, y], k) => {
    const [x1, y1] = one.truth.page.quad[k] as [number, number];
    expect(x).toBeCloseTo(2 * x1, 0);
    expect(y).toBeCloseTo(2 * y1, 0);
  });
  expect(two.truth.items.map((it) => it.question + it.student_answer)).toEqual(one.truth.items.map((it) => it.question + it.student_answer));
  two.truth.items.forEach((it, k) => expect(Math.abs((it.bbox[0] as number) - 2 * ((one.truth.items[k] as (typeof one.truth.items)[number]).bbox[0] as number))).toBeLessThanOrEqual(2));
});

it('the committed fixtures are 1280×960 and their ground truth holds', () => {
  const fixtures = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'homework');
  const names = readdirSync(fixtures).filter((f) => f.endsWith('.json'));
  expect(names.length).toBe(25);
  for (const name of names) {
    const truth = JSON.parse(readFileSync(path.join(fixtures, name), 'utf8')) as PageTruth & { expected_issue?: string };
    const img = cv.imread(path.join(fixtures, truth.image));
    expect([img.cols, img.rows], name).toEqual([W, H]);
    if (truth.expected_issue) expect(['too_dark', 'blurry', 'no_page']).toContain(truth.expected_issue);
    else checkTruth(truth.items);
  }
});
