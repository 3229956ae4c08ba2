import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import { projectRoot } from '../../runtime/paths.js';
import { softmax } from '../math.js';
import type { Confidence, Intent, SceneName } from '../../scenes/types.js';
import { type Analyzed, extractFeatures } from './features.js';

export const INTENTS: readonly Intent[] = ['chat', 'recite', 'homework', 'continue_current', 'exit_current'];

/** The file `npm run train:intent` writes. */
export interface IntentWeights {
  version: 1;
  classes: Intent[];
  features: string[];
  /** weights[class][feature] */
  weights: number[][];
  bias: number[];
  /** max probability ≥ high → HIGH; ≥ low → MID; else LOW (calibrated on held-out folds). */
  thresholds: { high: number; low: number };
  metrics: Record<string, unknown>;
}

export interface IntentPrediction {
  intent: Intent;
  confidence: Confidence;
  probability: number;
  probabilities: Record<Intent, number>;
}

export const WEIGHTS_FILE = path.join(projectRoot(), 'models', 'intent', 'weights.json');

/**
 * Linear scores of one utterance: bias + the sum of its features' weights, scaled by
 * 1/sqrt(number of distinct features) so that long utterances are not more confident merely
 * for being long. Features unknown to the model count for the scale but add nothing.
 */
export function scoresOf(feats: readonly string[], index: ReadonlyMap<string, number>, weights: readonly (readonly number[])[], bias: readonly number[]): number[] {
  const distinct = new Set(feats);
  const scale = 1 / Math.sqrt(distinct.size);
  const scores = [...bias];
  for (const f of distinct) {
    const j = index.get(f);
    if (j === undefined) continue;
    for (let k = 0; k < scores.length; k++) scores[k] = (scores[k] as number) + scale * ((weights[k] as readonly number[])[j] as number);
  }
  return scores;
}

export class IntentClassifier {
  private readonly index: Map<string, number>;

  constructor(private readonly model: IntentWeights) {
    this.index = new Map(model.features.map((f, i) => [f, i]));
  }

  static load(file = WEIGHTS_FILE): IntentClassifier {
    let model: IntentWeights;
    try {
      model = JSON.parse(readFileSync(file, 'utf8')) as IntentWeights;
    } catch (err) {
      throw new LampError(ErrorCode.MODEL_MISSING, `intent weights ${file} cannot be read: ${(err as Error).message}; run npm run train:intent`, { file });
    }
    const ok =
      model.version === 1 &&
      Array.isArray(model.classes) &&
      model.classes.every((c) => INTENTS.includes(c)) &&
      Array.isArray(model.features) &&
      model.weights?.length === model.classes.length &&
      model.weights.every((w) => w.length === model.features.length) &&
      model.bias?.length === model.classes.length &&
      typeof model.thresholds?.high === 'number' &&
      typeof model.thresholds?.low === 'number';
    if (!ok) throw new LampError(ErrorCode.MODEL_CORRUPT, `intent weights ${file} do not have the expected shape; run npm run train:intent`, { file });
    return new IntentClassifier(model);
  }

  get thresholds(): { high: number; low: number } {
    return this.model.thresholds;
  }

  /** `hints`: facts the router already knows, e.g. 'material_line' when the utterance quotes a line of a known text. */
  predict(text: string | Analyzed, scene: SceneName, hints: readonly string[] = []): IntentPrediction {
    const probs = softmax(scoresOf(extractFeatures(text, scene, hints), this.index, this.model.weights, this.model.bias));
    let best = 0;
    for (let k = 1; k < probs.length; k++) if ((probs[k] as number) > (probs[best] as number)) best = k;
    const p = probs[best] as number;
    const { high, low } = this.model.thresholds;
    const probabilities = Object.fromEntries(this.model.classes.map((c, k) => [c, probs[k] as number])) as Record<Intent, number>;
    return { intent: this.model.classes[best] as Intent, confidence: p >= high ? 'HIGH' : p >= low ? 'MID' : 'LOW', probability: p, probabilities };
  }
}
