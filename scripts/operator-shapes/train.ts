/**
 * Training of the operator-shape network (models/page/operator-shape.ts): one hidden ReLU
 * layer, softmax over the signs, mini-batch SGD with momentum and L2, each window also seen
 * shifted a pixel left and right (the recogniser places a sign's cell a little off its ink).
 * Deterministic for a given seed.
 */
import { forward, type OperatorWeights } from '../../models/page/operator-shape.js';
import { Rng } from '../homework-pages/rng.js';

export interface Sample {
  x: ArrayLike<number>;
  /** Index of the true sign. */
  y: number;
}

export interface TrainOptions {
  hidden: number;
  epochs: number;
  learningRate: number;
  momentum: number;
  l2: number;
  batch: number;
  seed: number;
}

export const DEFAULT_TRAIN: TrainOptions = { hidden: 32, epochs: 40, learningRate: 0.05, momentum: 0.9, l2: 1e-4, batch: 32, seed: 7 };

export type Net = Pick<OperatorWeights, 'w1' | 'b1' | 'w2' | 'b2'>;

/** The window moved `dx` columns (what comes in at the edge is paper). */
export function shifted(x: ArrayLike<number>, side: number, dx: number): Float32Array {
  const out = new Float32Array(side * side);
  for (let r = 0; r < side; r++) {
    for (let c = 0; c < side; c++) {
      const from = c - dx;
      if (from >= 0 && from < side) out[r * side + c] = x[r * side + from] as number;
    }
  }
  return out;
}

export function train(samples: readonly Sample[], classes: number, side: number, opts: TrainOptions = DEFAULT_TRAIN): Net {
  const rng = new Rng(opts.seed);
  const input = side * side;
  const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const net: Net = {
    w1: Array.from({ length: opts.hidden }, () => Array.from({ length: input }, () => gauss() * Math.sqrt(2 / input))),
    b1: new Array<number>(opts.hidden).fill(0),
    w2: Array.from({ length: classes }, () => Array.from({ length: opts.hidden }, () => gauss() * Math.sqrt(1 / opts.hidden))),
    b2: new Array<number>(classes).fill(0),
  };
  const v = { w1: net.w1.map((r) => r.map(() => 0)), b1: net.b1.map(() => 0), w2: net.w2.map((r) => r.map(() => 0)), b2: net.b2.map(() => 0) };
  const all = samples.flatMap((s) => [s, { x: shifted(s.x, side, -1), y: s.y }, { x: shifted(s.x, side, 1), y: s.y }]);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    const order = rng.shuffle(all.map((_, i) => i));
    const lr = opts.learningRate * (1 - epoch / opts.epochs);
    for (let start = 0; start < order.length; start += opts.batch) {
      const batch = order.slice(start, start + opts.batch);
      const g = { w1: net.w1.map((r) => r.map(() => 0)), b1: net.b1.map(() => 0), w2: net.w2.map((r) => r.map(() => 0)), b2: net.b2.map(() => 0) };
      for (const idx of batch) {
        const s = all[idx] as Sample;
        const { hidden, probs } = forward(net, s.x);
        // Output error (softmax + cross-entropy), then back through the ReLU layer.
        const d2 = Array.from(probs, (p, k) => p - (k === s.y ? 1 : 0));
        const d1 = new Float64Array(opts.hidden);
        for (let k = 0; k < classes; k++) {
          const dk = d2[k] as number;
          g.b2[k] = (g.b2[k] as number) + dk;
          const gw = g.w2[k] as number[];
          const w = net.w2[k] as number[];
          for (let j = 0; j < opts.hidden; j++) {
            gw[j] = (gw[j] as number) + dk * (hidden[j] as number);
            d1[j] = (d1[j] as number) + dk * (w[j] as number);
          }
        }
        for (let j = 0; j < opts.hidden; j++) {
          if ((hidden[j] as number) <= 0) continue;
          const dj = d1[j] as number;
          g.b1[j] = (g.b1[j] as number) + dj;
          const gw = g.w1[j] as number[];
          for (let i = 0; i < input; i++) gw[i] = (gw[i] as number) + dj * (s.x[i] as number);
        }
      }
      const step = (w: number[], gr: number[], vel: number[], decay: number): void => {
        for (let i = 0; i < w.length; i++) {
          vel[i] = opts.momentum * (vel[i] as number) - lr * ((gr[i] as number) / batch.length + decay * (w[i] as number));
          w[i] = (w[i] as number) + (vel[i] as number);
        }
      };
      net.w1.forEach((w, j) => step(w, g.w1[j] as number[], v.w1[j] as number[], opts.l2));
      step(net.b1, g.b1, v.b1, 0);
      net.w2.forEach((w, k) => step(w, g.w2[k] as number[], v.w2[k] as number[], opts.l2));
      step(net.b2, g.b2, v.b2, 0);
    }
  }
  return net;
}
