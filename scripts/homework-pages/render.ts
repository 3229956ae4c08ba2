/**
 * Renders a sheet's HTML in headless Chromium and reads back where every problem and every
 * handwritten answer landed, in CSS pixels of the sheet.
 */
import type { Browser } from 'playwright-core';

export type Rect = [number, number, number, number];

export interface RenderedSheet {
  png: Buffer;
  /** Device pixels per CSS pixel of the PNG. */
  scale: number;
  width: number;
  height: number;
  fontSize: number;
  /** Per problem index: the whole problem with its answer, and the answer (or the empty slot). */
  boxes: { item: Rect; answer: Rect }[];
}

export const RENDER_SCALE = 2;

// Browser-side code is kept as strings: the project compiles without the DOM library.

/**
 * Shrinks the printed size until every problem fits its cell and everything fits above the page
 * number, then spreads the rows so the problems fill the sheet as a printed 口算 page does.
 * Layout sizes (offsetWidth/offsetTop) ignore the handwriting's jitter transforms on purpose.
 */
const FIT = `(() => {
  const sheet = document.getElementById('page');
  const grid = sheet.querySelector('.grid');
  const cells = [...document.querySelectorAll('.cell')];
  const items = [...grid.querySelectorAll('.item')];
  const room = sheet.clientHeight - 56;
  const bottom = () => Math.max(...[...sheet.children].filter((e) => !e.classList.contains('foot')).map((e) => e.offsetTop + e.offsetHeight));
  const fits = () => bottom() <= room && items.every((it, k) => it.offsetWidth <= cells[k].clientWidth);
  let f = parseFloat(getComputedStyle(sheet).getPropertyValue('--f'));
  while (!fits() && f > 12) { f -= 0.5; sheet.style.setProperty('--f', f + 'px'); }
  const cols = getComputedStyle(grid).gridTemplateColumns.split(' ').length;
  const rows = Math.ceil(cells.length / cols);
  const gap = parseFloat(getComputedStyle(grid).rowGap);
  const extra = room - bottom();
  if (rows > 1 && extra > 0) grid.style.rowGap = Math.min(gap + (extra * 0.85) / (rows - 1), f * 2.4) + 'px';
  return f;
})()`;

/** Per problem: the union of the printed problem and its ink, and the ink alone (the empty slot when blank). */
const BOXES = `(n) => {
  const origin = document.getElementById('page').getBoundingClientRect();
  const union = (rs) => {
    const v = rs.filter((r) => r.width > 0 && r.height > 0);
    if (v.length === 0) return null;
    const x0 = Math.min(...v.map((r) => r.left)), y0 = Math.min(...v.map((r) => r.top));
    const x1 = Math.max(...v.map((r) => r.right)), y1 = Math.max(...v.map((r) => r.bottom));
    return [x0 - origin.left, y0 - origin.top, x1 - x0, y1 - y0];
  };
  const out = [];
  for (let i = 0; i < n; i++) {
    const item = document.querySelector('.item[data-i="' + i + '"]');
    const slot = document.querySelector('[data-s="' + i + '"]');
    const ink = [...document.querySelectorAll('.hw[data-i="' + i + '"]')].map((e) => e.getBoundingClientRect());
    const s = slot.getBoundingClientRect(), it = item.getBoundingClientRect();
    // an empty slot has no height of its own: take the line's
    const answer = union(ink) || union([s.height > 0 ? s : new DOMRect(s.left, it.top, Math.max(s.width, 1), it.height)]);
    const whole = union([item.getBoundingClientRect(), ...ink]);
    if (!answer || !whole) throw new Error('problem ' + i + ' has no box');
    out.push({ item: whole, answer });
  }
  return out;
}`;

export async function renderSheet(browser: Browser, html: string, width: number, height: number, count: number): Promise<RenderedSheet> {
  const context = await browser.newContext({ viewport: { width: width + 40, height: height + 40 }, deviceScaleFactor: RENDER_SCALE });
  try {
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: 'load' });
    await page.evaluate('document.fonts.ready.then(() => true)');
    const fontSize = (await page.evaluate(FIT)) as number;
    const boxes = (await page.evaluate(`(${BOXES})(${count})`)) as RenderedSheet['boxes'];
    const png = await page.locator('#page').screenshot({ type: 'png', animations: 'disabled', caret: 'hide' });
    return { png, scale: RENDER_SCALE, width, height, fontSize, boxes };
  } finally {
    await context.close();
  }
}
