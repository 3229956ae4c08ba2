import type { IntentClassifier } from '../../models/intent/classifier.js';
import type { Confidence, Intent, SceneName, Slots } from '../../scenes/types.js';
import { type MaterialMatcher, extractSlots, materialHints } from './slots.js';

export interface Route {
  intent: Intent;
  confidence: Confidence;
  slots: Slots;
  /** The classifier's probability of `intent`. */
  probability: number;
}

export interface Router {
  route(text: string, scene: SceneName): Route;
}

/** Tier 1: the trained classifier plus slot extraction. Classifies only; the guardrails decide. */
export class IntentRouter implements Router {
  constructor(
    private readonly classifier: IntentClassifier,
    private readonly matcher: MaterialMatcher,
  ) {}

  route(text: string, scene: SceneName): Route {
    const found = this.matcher.find(text);
    const p = this.classifier.predict(text, scene, materialHints(found));
    return { intent: p.intent, confidence: p.confidence, probability: p.probability, slots: extractSlots(text, p.intent, found) };
  }
}
