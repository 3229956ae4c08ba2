export interface DecodedChar {
  text: string;
  confidence: number;
  x0: number;
  x1: number;
  /** The recogniser's second choice at the step it was surest of this character (not the blank, nor another form of it). */
  runnerUp?: string;
  /**
   * The highest probability the recogniser gave a point (any of its forms), where it read none, at
   * the steps since the previous character began; absent below 0.01. A decimal point blurred away
   * between two digits often leaves some behind (see the homework checker's pointSeenInAnswer).
   */
  pointBefore?: number;
}
export interface DecodedLine { text: string; confidence: number; minCharConfidence: number; chars: DecodedChar[] }

/**
 * Greedy CTC decoding of one line: the most probable class at each time step, runs of the same class
 * collapsed to one character, the blank (class 0) dropped. A character's confidence is the highest
 * probability along its run, counting the dictionary's other forms of the same character (its
 * `twins`: "(" and "（", "4" and "④"), its runner-up the most probable other character at that
 * step; the line's confidence is the mean over its characters other than spaces.
 *
 * Each time step covers `pxPerStep` pixels of the crop, so a run from step a to step b spans
 * [a·pxPerStep, (b+1)·pxPerStep), clamped to the crop's width; see spreadSpans for how that spike
 * becomes the character's cell.
 */
export function ctcDecode(probs: Float32Array, offset: number, steps: number, classes: number, dict: readonly string[], pxPerStep: number, cropW: number): DecodedLine {
  const chars: DecodedChar[] = [];
  const forms = twins(dict);
  const points = pointClasses(dict);
  let prev = 0;
  let current: DecodedChar | undefined;
  let pointSince = 0;
  for (let t = 0; t < steps; t++) {
    const row = offset + t * classes;
    // The two most probable characters other than the blank; the blank wins ties.
    let first = 0, firstP = -1, second = 0, secondP = -1;
    for (let c = 1; c < classes; c++) {
      const p = probs[row + c] as number;
      if (p > firstP) {
        second = first;
        secondP = firstP;
        first = c;
        firstP = p;
      } else if (p > secondP) {
        second = c;
        secondP = p;
      }
    }
    const best = firstP > (probs[row] as number) ? first : 0;
    const same = forms.get(first);
    let bestP = best === 0 ? (probs[row] as number) : firstP;
    if (best !== 0 && same) {
      for (const c of same) bestP += probs[row + c] as number;
      // The second choice is another character, not another form of this one.
      if (same.includes(second)) {
        secondP = -1;
        for (let c = 1; c < classes; c++) {
          if (c !== first && !same.includes(c) && (probs[row + c] as number) > secondP) [second, secondP] = [c, probs[row + c] as number];
        }
      }
    }
    const runnerUp = dict[second];
    if (!points.includes(best)) {
      let p = 0;
      for (const c of points) p += probs[row + c] as number;
      pointSince = Math.max(pointSince, p);
    }
    if (best !== 0 && best === prev && current) {
      if (bestP > current.confidence) {
        current.confidence = bestP;
        current.runnerUp = runnerUp;
      }
      current.x1 = Math.min(cropW, (t + 1) * pxPerStep);
    } else if (best !== 0) {
      current = { text: dict[best] ?? '', confidence: bestP, x0: Math.min(cropW, t * pxPerStep), x1: Math.min(cropW, (t + 1) * pxPerStep), runnerUp };
      if (pointSince >= 0.01) current.pointBefore = Math.round(pointSince * 1000) / 1000;
      pointSince = 0;
      chars.push(current);
    } else {
      current = undefined;
    }
    prev = best;
  }
  // Spaces at either end carry no reading; spaces inside are kept so that text = chars joined.
  while (chars[0]?.text === ' ') chars.shift();
  while (chars.at(-1)?.text === ' ') chars.pop();
  if (chars.length === 0) return { text: '', confidence: 0, minCharConfidence: 0, chars };
  spreadSpans(chars, cropW);
  // Spaces do not count towards confidence: the recogniser is never very sure of a gap's width,
  // and a doubtful space says nothing about whether a digit was read right.
  const scored = chars.filter((c) => c.text !== ' ');
  let sum = 0, min = 1;
  for (const c of scored) {
    sum += c.confidence;
    min = Math.min(min, c.confidence);
  }
  return { text: chars.map((c) => c.text).join(''), confidence: sum / scored.length, minCharConfidence: min, chars };
}

/**
 * CTC fires a character on a step or two near its middle, so the spike is narrower than the glyph.
 * Each character gets a cell around its spike's centre instead: up to half the line's typical pitch
 * (the lower median of the distances between neighbouring centres) on either side, never past the midpoint to a
 * neighbour, so cells do not overlap and a wide gap before a written answer stays a gap.
 */
export function spreadSpans(chars: DecodedChar[], cropW: number): void {
  const centres = chars.map((c) => (c.x0 + c.x1) / 2);
  const gaps = centres.slice(1).map((c, i) => c - (centres[i] as number)).sort((a, b) => a - b);
  const pitch = gaps.length ? (gaps[(gaps.length - 1) >> 1] as number) : cropW;
  chars.forEach((c, i) => {
    const mid = centres[i] as number;
    const prev = centres[i - 1], next = centres[i + 1];
    c.x0 = Math.max(0, mid - pitch / 2, prev === undefined ? 0 : (prev + mid) / 2);
    c.x1 = Math.min(cropW, mid + pitch / 2, next === undefined ? cropW : (mid + next) / 2);
  });
}

const pointsByDict = new WeakMap<readonly string[], number[]>();

/** The dictionary's classes of a point: "." and its other forms. */
function pointClasses(dict: readonly string[]): number[] {
  let known = pointsByDict.get(dict);
  if (!known) {
    known = ['.', '。', '·', '．'].map((d) => dict.indexOf(d)).filter((c) => c > 0);
    pointsByDict.set(dict, known);
  }
  return known;
}

const twinsByDict = new WeakMap<readonly string[], Map<number, number[]>>();

/** For each class with other forms in the dictionary (the same character under NFKC), those forms' classes. */
function twins(dict: readonly string[]): Map<number, number[]> {
  const known = twinsByDict.get(dict);
  if (known) return known;
  const byForm = new Map<string, number[]>();
  dict.forEach((d, c) => {
    if (c === 0 || d === '') return;
    const form = d.normalize('NFKC');
    byForm.set(form, [...(byForm.get(form) ?? []), c]);
  });
  const out = new Map<number, number[]>();
  for (const group of byForm.values()) for (const c of group) if (group.length > 1) out.set(c, group.filter((o) => o !== c));
  twinsByDict.set(dict, out);
  return out;
}
