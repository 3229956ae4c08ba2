/**
 * Exercise pages with ground truth: one sheet per seed, photographed at each level, plus the
 * photos the lamp's quality gate must refuse (too dark, blurred, no sheet in view).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { cv } from '../../models/cv.js';
import { chooseLayout, pageHtml, type Layout } from './page-html.js';
import { frameAt, LEVEL_PARAMS, mapRect, photograph, PHOTO_H, PHOTO_W, type Level, type Point, type Homography } from './photo.js';
import { type Grade, type Kind, makeProblems, type Verdict } from './problems.js';
import { renderSheet, type Rect, type RenderedSheet } from './render.js';
import { Rng } from './rng.js';

export interface TruthItem {
  /** 1-based, in reading order: left to right, then down; full-width items last. */
  index: number;
  question: string;
  student_answer: string;
  correct_answer: string;
  /** What the lamp should conclude: non-arithmetic items go to the cloud, so "uncertain". */
  verdict: Verdict;
  kind: Kind;
  /** Present and true when the child wrote nothing (verdict is then "incorrect"). */
  blank?: true;
  /** The problem with its answer, [x, y, w, h] in photo pixels. */
  bbox: Rect;
  /** The handwritten answer (or the empty slot when blank), [x, y, w, h] in photo pixels. */
  answer_bbox: Rect;
}

export interface PageTruth {
  image: string;
  level: Level;
  seed: number;
  width: number;
  height: number;
  flat_image?: string;
  page: {
    grade: Grade;
    columns: number;
    orientation: Layout['orientation'];
    ink: 'pen' | 'pencil';
    /** Sheet corners in the photo, clockwise from its top-left. */
    quad: Point[];
    /** Sheet size in CSS pixels and the homography from those to photo pixels (the flat PNG is twice that size). */
    sheet_size: [number, number];
    homography: Homography;
  };
  quality: { mean_luma: number; laplacian_var: number };
  wrong_share: number;
  items: TruthItem[];
}

export interface BadTruth {
  image: string;
  seed: number;
  width: number;
  height: number;
  expected_issue: 'too_dark' | 'blurry' | 'no_page';
  quality: { mean_luma: number; laplacian_var: number };
}

export interface Sheet {
  seed: number;
  grade: Grade;
  layout: Layout;
  rendered: RenderedSheet;
  problems: ReturnType<typeof makeProblems>;
}

/** The sheet for a seed: same seed, same problems, same handwriting, same pixels. */
export async function makeSheet(browser: Browser, seed: number): Promise<Sheet> {
  const rng = Rng.derive(seed, 'sheet');
  const grade = rng.pick([1, 2, 3] as const);
  const layout = chooseLayout(rng);
  const problems = makeProblems(rng, grade, layout.count);
  const html = pageHtml(rng, layout, problems);
  const rendered = await renderSheet(browser, html, layout.width, layout.height, problems.problems.length);
  return { seed, grade, layout, rendered, problems };
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** `sheet` photographed at `level`, in a frame of PHOTO_W×PHOTO_H times `scale` (see photo.ts' Frame). */
export function photographSheet(sheet: Sheet, level: Level, scale = 1): { jpeg: Buffer; truth: Omit<PageTruth, 'image'> } {
  const image = cv.imdecode(sheet.rendered.png);
  const frame = frameAt(scale);
  const photo = photograph(Rng.derive(sheet.seed, `photo-${level}`), { image, width: sheet.layout.width, height: sheet.layout.height }, LEVEL_PARAMS[level], scale);
  const h = photo.cssToPhoto as Homography;
  const items = sheet.problems.problems.map((p, i) => ({ p, i, box: sheet.rendered.boxes[i] as RenderedSheet['boxes'][number] }));
  // reading order: grid rows top to bottom, left to right within a row; full-width items after the grid
  const rowOf = (y: number) => Math.round(y / 8);
  items.sort((a, b) => Number(a.p.wide) - Number(b.p.wide) || rowOf(a.box.item[1]) - rowOf(b.box.item[1]) || a.box.item[0] - b.box.item[0]);
  const truthItems = items.map(({ p, box }, k): TruthItem => ({
    index: k + 1,
    question: p.question,
    student_answer: p.student,
    correct_answer: p.correct,
    verdict: p.verdict,
    kind: p.kind,
    ...(p.blank ? { blank: true as const } : {}),
    bbox: mapRect(h, box.item, frame),
    answer_bbox: mapRect(h, box.answer, frame),
  }));
  return {
    jpeg: photo.jpeg,
    truth: {
      level,
      seed: sheet.seed,
      width: frame.w,
      height: frame.h,
      page: {
        grade: sheet.grade,
        columns: sheet.layout.columns,
        orientation: sheet.layout.orientation,
        ink: sheet.layout.pencil ? 'pencil' : 'pen',
        quad: (photo.quad as Point[]).map(([x, y]): Point => [round1(x), round1(y)]),
        sheet_size: [sheet.layout.width, sheet.layout.height],
        homography: h.map((r) => r.map((v) => Number(v.toPrecision(10)))),
      },
      quality: photo.quality,
      wrong_share: Math.round(sheet.problems.wrongShare * 1000) / 1000,
      items: truthItems,
    },
  };
}

/** Too dark, blurred, and the bare desk, each from its own seed-derived generator. */
export function badPhotos(sheet: Sheet): { name: string; jpeg: Buffer; truth: Omit<BadTruth, 'image'> }[] {
  const image = cv.imdecode(sheet.rendered.png);
  const s = { image, width: sheet.layout.width, height: sheet.layout.height };
  const base = { seed: sheet.seed, width: PHOTO_W, height: PHOTO_H };
  const dark = photograph(Rng.derive(sheet.seed, 'bad-dark'), s, { ...LEVEL_PARAMS.easy, exposure: [0.1, 0.14], noise: [2.5, 3.5], jpegQuality: 80 });
  const blurred = photograph(Rng.derive(sheet.seed, 'bad-blur'), s, { ...LEVEL_PARAMS.medium, blur: [6, 8], noise: [2, 3] });
  const empty = photograph(Rng.derive(sheet.seed, 'bad-empty'), null, LEVEL_PARAMS.easy);
  return [
    { name: `dark-${sheet.seed}`, jpeg: dark.jpeg, truth: { ...base, expected_issue: 'too_dark', quality: dark.quality } },
    { name: `blurred-${sheet.seed}`, jpeg: blurred.jpeg, truth: { ...base, expected_issue: 'blurry', quality: blurred.quality } },
    { name: `nopage-${sheet.seed}`, jpeg: empty.jpeg, truth: { ...base, expected_issue: 'no_page', quality: empty.quality } },
  ];
}

export interface GenerateOptions {
  out: string;
  seeds: number[];
  levels: Level[];
  /** Also write the clean sheet as page-<seed>-flat.png. */
  flat: boolean;
  /** Also write the three photos the quality gate must refuse. */
  bad: boolean;
}

export async function generate(browser: Browser, o: GenerateOptions, log: (line: string) => void = () => {}): Promise<string[]> {
  mkdirSync(o.out, { recursive: true });
  const written: string[] = [];
  const write = (name: string, data: Buffer | string) => {
    writeFileSync(path.join(o.out, name), data);
    written.push(name);
  };
  for (const seed of o.seeds) {
    const sheet = await makeSheet(browser, seed);
    const flatName = `page-${seed}-flat.png`;
    if (o.flat) write(flatName, sheet.rendered.png);
    for (const level of o.levels) {
      const { jpeg, truth } = photographSheet(sheet, level);
      const image = `${level}-${seed}.jpg`;
      write(image, jpeg);
      const full: PageTruth = { image, ...truth, ...(o.flat ? { flat_image: flatName } : {}) };
      write(`${level}-${seed}.json`, JSON.stringify(full, null, 1) + '\n');
      log(`${image}: grade ${sheet.grade}, ${truth.items.length} items, ${Math.round(truth.wrong_share * 100)}% wrong, ${Math.round(jpeg.length / 1024)} KB`);
    }
    if (o.bad) {
      for (const b of badPhotos(sheet)) {
        write(`${b.name}.jpg`, b.jpeg);
        write(`${b.name}.json`, JSON.stringify({ image: `${b.name}.jpg`, ...b.truth }, null, 1) + '\n');
        log(`${b.name}.jpg: ${b.truth.expected_issue}, ${Math.round(b.jpeg.length / 1024)} KB`);
      }
    }
  }
  return written;
}
