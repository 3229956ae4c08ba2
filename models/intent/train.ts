import { createHash } from 'node:crypto';
import type { Intent, SceneName } from '../../scenes/types.js';
import { softmax } from '../math.js';
import { INTENTS, type IntentWeights, scoresOf } from './classifier.js';
import { extractFeatures } from './features.js';

export interface Labelled {
  text: string;
  scene: SceneName;
  intent: Intent;
  /** Router hints for this utterance (see IntentClassifier.predict). */
  hints?: string[];
}

export interface TrainOptions {
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
}

export const DEFAULT_TRAIN: TrainOptions = { epochs: 20, learningRate: 0.5, l2: 1e-3, seed: 7 };

/** Deterministic 80/20 split by the utterance itself, so the held-out set never changes with ordering. */
export function isHeldOut(u: Labelled): boolean {
  return (createHash('sha256').update(`${u.scene}\u0000${u.text}`).digest()[0] as number) % 5 === 0;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Model = Pick<IntentWeights, 'classes' | 'features' | 'weights' | 'bias'>;

export function featuresOf(u: Labelled): string[] {
  return [...new Set(extractFeatures(u.text, u.scene, u.hints))];
}

/**
 * Multinomial logistic regression over binary features scaled by 1/sqrt(n), trained by AdaGrad
 * SGD with L2. Deterministic for a given seed.
 */
export function train(data: readonly Labelled[], opts: TrainOptions = DEFAULT_TRAIN, featureCache?: Map<Labelled, string[]>): Model {
  const featLists = data.map((u) => featureCache?.get(u) ?? featuresOf(u));
  const features = [...new Set(featLists.flat())].sort();
  const index = new Map(features.map((f, i) => [f, i]));
  const examples = featLists.map((fl, i) => ({ idx: Int32Array.from(fl, (f) => index.get(f) as number), label: INTENTS.indexOf((data[i] as Labelled).intent), scale: 1 / Math.sqrt(fl.length) }));
  const K = INTENTS.length;
  const F = features.length;
  const w = new Float64Array(K * F);
  const gw = new Float64Array(K * F).fill(1e-8);
  const bias = new Float64Array(K);
  const gb = new Float64Array(K).fill(1e-8);
  const scores = new Float64Array(K);
  const rand = mulberry32(opts.seed);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (const i of order) {
      const ex = examples[i] as (typeof examples)[number];
      let max = -Infinity;
      for (let k = 0; k < K; k++) {
        let s = bias[k] as number;
        for (const j of ex.idx) s += ex.scale * (w[k * F + j] as number);
        scores[k] = s;
        if (s > max) max = s;
      }
      let sum = 0;
      for (let k = 0; k < K; k++) sum += scores[k] = Math.exp((scores[k] as number) - max);
      for (let k = 0; k < K; k++) {
        const g = (scores[k] as number) / sum - (k === ex.label ? 1 : 0);
        gb[k] = (gb[k] as number) + g * g;
        bias[k] = (bias[k] as number) - (opts.learningRate * g) / Math.sqrt(gb[k] as number);
        for (const j of ex.idx) {
          const at = k * F + j;
          const grad = g * ex.scale + opts.l2 * (w[at] as number);
          gw[at] = (gw[at] as number) + grad * grad;
          w[at] = (w[at] as number) - (opts.learningRate * grad) / Math.sqrt(gw[at] as number);
        }
      }
    }
  }
  const round = (x: number): number => Math.round(x * 1e4) / 1e4;
  const weights = Array.from({ length: K }, (_, k) => Array.from(w.subarray(k * F, (k + 1) * F), round));
  return { classes: [...INTENTS], features, weights, bias: Array.from(bias, round) };
}

export function predictWith(model: Model, index: Map<string, number>, u: Labelled): number[] {
  return softmax(scoresOf(extractFeatures(u.text, u.scene, u.hints), index, model.weights, model.bias));
}

export interface Scored {
  correct: boolean;
  p: number;
}

/** Out-of-fold predictions (k-fold cross-validation) of the training split. */
export function outOfFold(data: readonly Labelled[], opts: TrainOptions = DEFAULT_TRAIN, folds = 5, cache?: Map<Labelled, string[]>): Scored[] {
  const out: Scored[] = [];
  for (let f = 0; f < folds; f++) {
    const model = train(data.filter((_, i) => i % folds !== f), opts, cache);
    const index = new Map(model.features.map((x, i) => [x, i]));
    data.forEach((u, i) => {
      if (i % folds !== f) return;
      const probs = predictWith(model, index, u);
      const best = probs.indexOf(Math.max(...probs));
      out.push({ correct: INTENTS[best] === u.intent, p: probs[best] as number });
    });
  }
  return out;
}

/** Picks the training options with the best cross-validated accuracy on the training split only. */
export function searchOptions(data: readonly Labelled[]): { opts: TrainOptions; cvAccuracy: number; scored: Scored[] } {
  const cache = new Map(data.map((u) => [u, featuresOf(u)]));
  let best: { opts: TrainOptions; cvAccuracy: number; scored: Scored[] } | undefined;
  for (const l2 of [1e-4, 1e-3, 3e-3]) {
    for (const epochs of [10, 25]) {
      const opts = { ...DEFAULT_TRAIN, l2, epochs };
      const scored = outOfFold(data, opts, 5, cache);
      const cvAccuracy = scored.filter((s) => s.correct).length / scored.length;
      if (!best || cvAccuracy > best.cvAccuracy) best = { opts, cvAccuracy, scored };
    }
  }
  return best as { opts: TrainOptions; cvAccuracy: number; scored: Scored[] };
}

/**
 * Thresholds from out-of-fold predictions. `high`: the lowest probability above which the
 * predictions were right at least `highPrecision` of the time — HIGH may switch scenes without
 * asking. `low`: the highest probability below which the predictions were wrong at least half
 * the time — LOW makes the lamp ask what the child meant. Between them, MID asks to confirm.
 */
export function calibrate(scored: readonly Scored[], highPrecision = 0.98): { high: number; low: number } {
  const desc = [...scored].sort((a, b) => b.p - a.p);
  let right = 0;
  let high = 1;
  desc.forEach((s, i) => {
    if (s.correct) right++;
    if (right / (i + 1) >= highPrecision) high = s.p;
  });
  const asc = [...desc].reverse();
  let rightBelow = 0;
  let low = 0;
  asc.forEach((s, i) => {
    if (s.correct) rightBelow++;
    if (rightBelow / (i + 1) <= 0.5) low = s.p;
  });
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  const h = Math.max(0.5, r(high));
  return { high: h, low: Math.min(h, Math.max(0.25, r(low))) };
}
