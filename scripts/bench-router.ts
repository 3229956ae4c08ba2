/**
 * npm run bench:router — latency of route + guardrails over the whole labelled set (p50/p99),
 * accuracy on the held-out split, and one whole turn through the pipeline (state read → route →
 * guardrails → scene step → response → state write in SQLite) p50/p99.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { isHeldOut } from '../models/intent/train.js';
import { createRouter } from '../runtime/commands/route.js';
import { projectRoot } from '../runtime/paths.js';
import { decide } from '../runtime/turn/guardrails.js';
import { TurnPipeline } from '../runtime/turn/pipeline.js';
import { newSession, SessionStore } from '../runtime/turn/session.js';
import { chatScene } from '../scenes/chat/scene.js';
import { createReciteScene } from '../scenes/recite/scene.js';
import type { Intent, Scene, SceneName } from '../scenes/types.js';
import { openDatabase } from '../sync/db.js';
import { SqliteOutbox } from '../sync/outbox.js';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}

const data = readFileSync(path.join(projectRoot(), 'models', 'intent', 'data', 'utterances.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { text: string; scene: SceneName; intent: Intent });

const router = createRouter();
const now = new Date();
const lat: number[] = [];
for (let round = 0; round < 5; round++) {
  for (const u of data) {
    const session = { ...newSession('bench', now), active_scene: u.scene };
    const t0 = process.hrtime.bigint();
    const route = router.route(u.text, u.scene);
    decide({ text: u.text, session, route, now });
    if (round > 0) lat.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
}
const held = data.filter(isHeldOut);
const right = held.filter((u) => router.route(u.text, u.scene).intent === u.intent).length;

const db = openDatabase(path.join(mkdtempSync(path.join(tmpdir(), 'lamp-bench-')), 'lamp.db'));
const pipeline = new TurnPipeline({
  db,
  sessions: new SessionStore(db),
  outbox: new SqliteOutbox(db),
  router,
  scenes: { chat: chatScene as Scene, recite: createReciteScene() as Scene, homework: undefined },
  runEffects: async () => {},
  log: pino({ level: 'silent' }),
});
const turnMs: number[] = [];
const chatLines = data.filter((u) => u.scene === 'chat' && u.intent === 'chat');
for (let i = 0; i < 1200; i++) {
  const env = await pipeline.handle({ type: 'utterance', text: (chatLines[i % chatLines.length] as { text: string }).text, source: 'bench' });
  if (i >= 200) turnMs.push(env.processing_time_ms);
}
db.close();

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
console.log(`route + guardrails over ${data.length} labelled lines × 4: p50 ${pct(lat, 50).toFixed(0)} µs, p99 ${pct(lat, 99).toFixed(0)} µs`);
console.log(`held-out accuracy: ${((right / held.length) * 100).toFixed(1)} % (${right}/${held.length})`);
console.log(`whole turn (SQLite read → route → guardrails → chat step → response → SQLite write, FULL sync): p50 ${pct(turnMs, 50).toFixed(2)} ms, p99 ${pct(turnMs, 99).toFixed(2)} ms`);
console.log(JSON.stringify({ bench: 'router', route_p50_us: Math.round(pct(lat, 50)), route_p99_us: Math.round(pct(lat, 99)), held_out_accuracy: right / held.length, turn_p50_ms: pct(turnMs, 50), turn_p99_ms: pct(turnMs, 99) }));
