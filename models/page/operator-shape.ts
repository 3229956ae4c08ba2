import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../runtime/paths.js';
import { softmax } from '../math.js';
import { SIGN_WINDOW } from './signs.js';

/**
 * Which printed sign a mark is, from its shape alone: a small two-layer network over the
 * sign's window (`signWindow`). The recogniser reads a ÷ whose dots blurred into its bar as +
 * (619 of 687 ÷ on hard synthetic pages) and a + whose upright faded as -; the window shows
 * what the line's context makes the recogniser overlook. "=" is a sign of its own so that an
 * equals sign read as an operator is not taken for one. Trained by `npm run train:operators` on
 * signs cut from generated pages (scripts/homework-pages), with the page's truth as labels.
 */

export const OPERATOR_SIGNS = ['+', '-', '×', '÷', '='] as const;
export type OperatorSign = (typeof OPERATOR_SIGNS)[number];

export interface OperatorWeights {
  version: 1;
  signs: OperatorSign[];
  /** Side of the square input window, in values. */
  window: number;
  /** hidden × input, hidden; signs × hidden, signs. */
  w1: number[][];
  b1: number[];
  w2: number[][];
  b2: number[];
  /** At or above this probability a sign is taken as read (chosen on held-out pages, see the training script). */
  sure: number;
  /** How it was trained and how it did on pages it never saw. */
  trained: { pages: string; samples: number; heldOut: { samples: number; accuracy: number; sureShare: number; sureErrors: number } };
}

export const OPERATOR_WEIGHTS_FILE = path.join(projectRoot(), 'models', 'page', 'operator-weights.json');

export interface OperatorReading {
  sign: OperatorSign;
  p: number;
  /** p is at or above the weights' `sure` threshold. */
  sure: boolean;
}

/** The hidden layer's activations and the signs' probabilities for one window. */
export function forward(w: Pick<OperatorWeights, 'w1' | 'b1' | 'w2' | 'b2'>, x: ArrayLike<number>): { hidden: Float64Array; probs: number[] } {
  const hidden = new Float64Array(w.b1.length);
  for (let j = 0; j < hidden.length; j++) {
    const row = w.w1[j] as number[];
    let s = w.b1[j] as number;
    for (let i = 0; i < row.length; i++) s += (row[i] as number) * (x[i] as number);
    hidden[j] = s > 0 ? s : 0;
  }
  const scores = w.w2.map((row, k) => {
    let s = w.b2[k] as number;
    for (let j = 0; j < hidden.length; j++) s += (row[j] as number) * (hidden[j] as number);
    return s;
  });
  return { hidden, probs: softmax(scores) };
}

export class OperatorShapes {
  private constructor(private readonly w: OperatorWeights) {}

  /** Loads and checks the weights; a file that does not fit the window or the signs is an error naming it. */
  static load(file = OPERATOR_WEIGHTS_FILE): OperatorShapes {
    let w: OperatorWeights;
    try {
      w = JSON.parse(readFileSync(file, 'utf8')) as OperatorWeights;
    } catch (err) {
      throw new Error(`operator-shape weights ${file} cannot be read: ${(err as Error).message}`);
    }
    const input = SIGN_WINDOW * SIGN_WINDOW;
    const fits =
      w?.version === 1 &&
      w.window === SIGN_WINDOW &&
      Array.isArray(w.signs) &&
      w.signs.length === w.b2?.length &&
      w.signs.every((s) => (OPERATOR_SIGNS as readonly string[]).includes(s)) &&
      w.w1?.length === w.b1?.length &&
      w.w1.every((r) => Array.isArray(r) && r.length === input && r.every(Number.isFinite)) &&
      w.w2?.length === w.signs.length &&
      w.w2.every((r) => Array.isArray(r) && r.length === w.b1.length && r.every(Number.isFinite)) &&
      [...w.b1, ...w.b2].every(Number.isFinite) &&
      typeof w.sure === 'number' &&
      w.sure > 0.5 &&
      w.sure <= 1;
    if (!fits) throw new Error(`operator-shape weights ${file} do not fit a ${SIGN_WINDOW}×${SIGN_WINDOW} window and the signs ${OPERATOR_SIGNS.join(' ')}`);
    return new OperatorShapes(w);
  }

  /** The sign a window most likely shows. */
  classify(x: ArrayLike<number>): OperatorReading {
    const { probs } = forward(this.w, x);
    let best = 0;
    for (let k = 1; k < probs.length; k++) if ((probs[k] as number) > (probs[best] as number)) best = k;
    const p = probs[best] as number;
    return { sign: this.w.signs[best] as OperatorSign, p, sure: p >= this.w.sure };
  }
}
