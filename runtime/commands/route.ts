import { IntentClassifier } from '../../models/intent/classifier.js';
import { builtinLibrary } from '../../scenes/recite/library.js';
import type { SceneName } from '../../scenes/types.js';
import { IntentRouter } from '../turn/router.js';
import { MaterialMatcher } from '../turn/slots.js';
import { jsonLines } from './jsonl.js';

const SCENES: readonly string[] = ['chat', 'recite', 'homework'];

export function createRouter(): IntentRouter {
  return new IntentRouter(IntentClassifier.load(), new MaterialMatcher(builtinLibrary())).warmUp();
}

/**
 * `lamp route --jsonl`: one JSON line in ({"id","text","scene"}), one out
 * ({"id","intent","confidence","slots","latency_us"}). Loads the model once.
 */
export function routeCommand(): Promise<number> {
  const router = createRouter();
  return jsonLines((q) => {
    const scene = q.scene ?? 'chat';
    if (typeof q.text !== 'string' || typeof scene !== 'string' || !SCENES.includes(scene)) throw new Error('expected {"id","text","scene": "chat|recite|homework"}');
    const t0 = process.hrtime.bigint();
    const r = router.route(q.text, scene as SceneName);
    const latencyUs = Number(process.hrtime.bigint() - t0) / 1000;
    return { intent: r.intent, confidence: r.confidence, slots: r.slots, latency_us: Math.round(latencyUs * 10) / 10 };
  });
}
