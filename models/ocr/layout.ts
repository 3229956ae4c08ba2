import type { Pt } from './geometry.js';

/**
 * Where along the image a crop's reading direction runs: crop x = 0 is `from`, crop x = its width
 * is `to` (both on the quad's mid-line). A straight crop reads from the left edge to the right; a
 * quarter-turned one from the top edge down; a crop turned upside down the other way round.
 */
export function readingAxis(quad: Pt[], rotated90: boolean, rotated180: boolean): { from: Pt; to: Pt } {
  const [p0, p1, p2, p3] = quad as [Pt, Pt, Pt, Pt];
  const mid = (a: Pt, b: Pt): Pt => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  const from = rotated90 ? mid(p0, p1) : mid(p0, p3);
  const to = rotated90 ? mid(p3, p2) : mid(p1, p2);
  return rotated180 ? { from: to, to: from } : { from, to };
}

/** A character's span in crop pixels → its horizontal span in image pixels. */
export function spanInImage(axis: { from: Pt; to: Pt }, cropW: number, x0: number, x1: number): { x0: number; x1: number } {
  const at = (x: number) => axis.from[0] + (axis.to[0] - axis.from[0]) * (x / cropW);
  const a = at(x0), b = at(x1);
  return { x0: Math.min(a, b), x1: Math.max(a, b) };
}

interface Placed { box: { x: number; y: number; w: number; h: number } }

/**
 * Reading order of a page: top to bottom, and left to right among lines that share a row. Two
 * lines share a row when their vertical centres are closer than half the smaller line's height,
 * so slightly uneven handwriting on one row still reads left to right.
 */
export function readingOrder<T extends Placed>(lines: T[]): T[] {
  const byTop = [...lines].sort((a, b) => a.box.y + a.box.h / 2 - (b.box.y + b.box.h / 2));
  const rows: T[][] = [];
  for (const line of byTop) {
    const cy = line.box.y + line.box.h / 2;
    const row = rows.at(-1);
    const anchor = row?.[0];
    if (row && anchor && Math.abs(anchor.box.y + anchor.box.h / 2 - cy) < Math.min(anchor.box.h, line.box.h) / 2) row.push(line);
    else rows.push([line]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.box.x - b.box.x));
}
