/**
 * Labelled sign windows from generated homework pages: each page is photographed, prepared and
 * read as the lamp does (scripts/homework-pages, models/page, models/ocr), and every operator or
 * "=" the recogniser placed inside a problem is labelled with the problem's printed sign, when
 * the recogniser found as many signs there as the problem has, in the same places for its "=".
 */
import type { Browser } from 'playwright-core';
import type { OcrEngine, OcrLine } from '../../models/ocr/index.js';
import { OPERATOR_SIGNS, type OperatorSign } from '../../models/page/operator-shape.js';
import { eraseComparisonCircles, findComparisonCircles, preparePage, signWindow } from '../../models/page/index.js';
import { makeSheet, photographSheet, type TruthItem } from '../homework-pages/generate.js';
import type { Level } from '../homework-pages/photo.js';

export interface SignSample {
  seed: number;
  level: Level;
  /** What the recogniser read there. */
  read: string;
  sign: OperatorSign;
  x: number[];
}

const READ_AS_SIGN = /^[+\-×÷xX*=]$/;
const inside = (b: readonly number[], [x, y]: [number, number]): boolean => x >= (b[0] as number) && x <= (b[0] as number) + (b[2] as number) && y >= (b[1] as number) && y <= (b[1] as number) + (b[3] as number);

/** The signs of one generated page at one level. */
export async function harvestPage(browser: Browser, ocr: OcrEngine, seed: number, level: Level): Promise<SignSample[]> {
  const { jpeg, truth } = photographSheet(await makeSheet(browser, seed), level);
  return (await signsOfPhoto(ocr, jpeg, truth.items as TruthItem[])).map((s) => ({ seed, level, ...s }));
}

/** The labelled signs of a photographed page with its truth items. */
export async function signsOfPhoto(ocr: OcrEngine, jpeg: Buffer, items: readonly Pick<TruthItem, 'question' | 'bbox'>[]): Promise<Omit<SignSample, 'seed' | 'level'>[]> {
  const prepared = await preparePage(jpeg, {});
  if (!prepared.ok) return [];
  const page = prepared.page;
  const lines = await ocr.read(eraseComparisonCircles(page, findComparisonCircles(page)));
  const out: Omit<SignSample, 'seed' | 'level'>[] = [];
  for (const line of lines) {
    // The line's signs grouped by the problem whose box holds them on the photo.
    const groups = new Map<number, OcrLine['chars']>();
    for (const c of line.chars) {
      if (!READ_AS_SIGN.test(c.text)) continue;
      const at = prepared.toSource((c.x0 + c.x1) / 2, line.box.y + line.box.h / 2);
      const holders = items.filter((it) => inside(it.bbox, at));
      if (holders.length !== 1) continue;
      const k = items.indexOf(holders[0] as TruthItem);
      groups.set(k, [...(groups.get(k) ?? []), c]);
    }
    for (const [k, chars] of groups) {
      const signs = [...(items[k] as TruthItem).question].filter((ch): ch is OperatorSign => (OPERATOR_SIGNS as readonly string[]).includes(ch));
      if (signs.length !== chars.length || signs.some((s, j) => (s === '=') !== (chars[j]?.text === '='))) continue;
      chars.forEach((c, j) => {
        const x = signWindow(page, line.box, c.x0, c.x1);
        if (x) out.push({ read: c.text, sign: signs[j] as OperatorSign, x: Array.from(x, (v) => Math.round(v * 1000) / 1000) });
      });
    }
  }
  return out;
}
