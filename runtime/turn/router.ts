import type { IntentClassifier } from '../../models/intent/classifier.js';
import { analyze } from '../../models/intent/features.js';
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
  /** `focus`: the material the active scene is working on (a recitation in progress). */
  route(text: string, scene: SceneName, focus?: string): Route;
}

/** Tier 1: the trained classifier plus slot extraction. Classifies only; the guardrails decide. */
export class IntentRouter implements Router {
  constructor(
    private readonly classifier: IntentClassifier,
    private readonly matcher: MaterialMatcher,
  ) {}

  /** Runs a few turns through every code path so the first child's turn does not pay for JIT compilation. */
  warmUp(rounds = 200): this {
    const samples = ['我要背静夜思', '帮我检查作业', '不想背了', '床前明月光疑是地上霜', '为什么天是蓝的', 'I want to recite a poem'];
    const scenes: SceneName[] = ['chat', 'recite', 'homework'];
    for (let i = 0; i < rounds; i++) this.route(samples[i % samples.length] as string, scenes[i % scenes.length] as SceneName);
    return this;
  }

  route(text: string, scene: SceneName, focus?: string): Route {
    const analyzed = analyze(text);
    // Reciting the text in progress is carrying on with the scene, whatever the words would
    // mean elsewhere ("What's your name?" is a line of an English text, not a question).
    if (focus && this.matcher.isRecitationOf(analyzed, focus)) return { intent: 'continue_current', confidence: 'HIGH', probability: 1, slots: {} };
    const found = this.matcher.find(analyzed);
    const p = this.classifier.predict(analyzed, scene, materialHints(found));
    return { intent: p.intent, confidence: p.confidence, probability: p.probability, slots: extractSlots(text, p.intent, found) };
  }
}
