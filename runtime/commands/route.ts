import { createInterface } from 'node:readline';
import { IntentClassifier } from '../../models/intent/classifier.js';
import { builtinLibrary } from '../../scenes/recite/library.js';
import type { SceneName } from '../../scenes/types.js';
import { IntentRouter } from '../turn/router.js';
import { MaterialMatcher } from '../turn/slots.js';

const SCENES: readonly string[] = ['chat', 'recite', 'homework'];

export function createRouter(): IntentRouter {
  return new IntentRouter(IntentClassifier.load(), new MaterialMatcher(builtinLibrary())).warmUp();
}

/**
 * `lamp route --jsonl`: one JSON line in ({"id","text","scene"}), one out
 * ({"id","intent","confidence","slots","latency_us"}). Loads the model once. A bad line gets
 * {"id", "error"} and the rest carry on.
 */
export async function routeCommand(): Promise<number> {
  const router = createRouter();
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let failures = 0;
  for await (const line of rl) {
    if (!line.trim()) continue;
    let q: { id?: unknown; text?: unknown; scene?: unknown };
    try {
      q = JSON.parse(line) as typeof q;
      if (typeof q !== 'object' || q === null || Array.isArray(q)) throw new Error('not an object');
    } catch {
      failures++;
      process.stdout.write(JSON.stringify({ id: null, error: 'not a JSON object' }) + '\n');
      continue;
    }
    const scene = q.scene ?? 'chat';
    if (typeof q.text !== 'string' || typeof scene !== 'string' || !SCENES.includes(scene)) {
      failures++;
      process.stdout.write(JSON.stringify({ id: q.id ?? null, error: 'expected {"id","text","scene": "chat|recite|homework"}' }) + '\n');
      continue;
    }
    const t0 = process.hrtime.bigint();
    const r = router.route(q.text, scene as SceneName);
    const latencyUs = Number(process.hrtime.bigint() - t0) / 1000;
    process.stdout.write(JSON.stringify({ id: q.id ?? null, intent: r.intent, confidence: r.confidence, slots: r.slots, latency_us: Math.round(latencyUs * 10) / 10 }) + '\n');
  }
  return failures === 0 ? 0 : 2;
}
