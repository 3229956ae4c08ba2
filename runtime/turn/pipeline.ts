import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Effect, Scene, SceneEvent, SceneName, SceneState, StepResult } from '../../scenes/types.js';
import type { SqliteOutbox } from '../../sync/outbox.js';
import { ErrorCode, LampError, formatCode } from '../errors.js';
import { type Logger, utteranceForLog } from '../log.js';
import { checkUtterance } from './input.js';
import { type ResponseEnvelope, envelope } from './response.js';
import type { Router } from './router.js';
import { DEFAULT_SESSION_ID, type Session, type SessionStore } from './session.js';

export type TurnInput =
  | { type: 'utterance'; text: string; source: string }
  | { type: 'image'; source: string };

/** Runs the effects that leave the process (speech, projector, servo) after the turn has committed. */
export type EffectRunner = (effects: Effect[], ctx: { traceId: string; log: Logger }) => Promise<void>;

export interface PipelineDeps {
  db: Database;
  sessions: SessionStore;
  outbox: SqliteOutbox;
  router: Router;
  scenes: Record<SceneName, Scene | undefined>;
  runEffects: EffectRunner;
  log: Logger;
  now?: () => Date;
}

/**
 * The turn pipeline: input → session state → route → scene step → response → effects.
 * State, the turn log and upward records commit in one transaction before anything is said or
 * shown, so what the child hears is always what was saved. Turns run one at a time.
 */
export class TurnPipeline {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  turns = 0;

  constructor(private readonly deps: PipelineDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  handle(input: TurnInput): Promise<ResponseEnvelope> {
    const run = this.queue.then(() => this.run(input));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(input: TurnInput): Promise<ResponseEnvelope> {
    const t0 = performance.now();
    const traceId = randomUUID();
    const log = this.deps.log.child({ trace_id: traceId });
    const now = this.now();
    const nowIso = now.toISOString();

    if (input.type === 'utterance') {
      log.info({ source: input.source, ...utteranceForLog(log, input.text) }, 'turn input');
      const check = checkUtterance(input.text);
      if (!check.ok) {
        log.info({ reason: check.reason }, 'input rejected');
        const session = this.deps.sessions.load(DEFAULT_SESSION_ID, now);
        return this.reply(session, traceId, t0, { text: check.message }, 'idle', {
          code: formatCode(ErrorCode.INPUT_REJECTED),
          message: check.reason,
        });
      }
      input = { ...input, text: check.text };
    } else {
      log.info({ source: input.source }, 'turn input: image');
    }

    const committed = this.deps.db.transaction(() => {
      const session = this.deps.sessions.load(DEFAULT_SESSION_ID, now);
      const sceneName = session.active_scene;
      const scene = this.deps.scenes[sceneName];
      if (!scene) throw new LampError(ErrorCode.SCENE_UNKNOWN, `no scene named ${sceneName}`, { scene: sceneName });
      const route = input.type === 'utterance' ? this.deps.router.route(input.text, sceneName) : { intent: 'homework' as const, confidence: 'HIGH' as const, slots: {} };
      const event: SceneEvent =
        input.type === 'utterance'
          ? { type: 'utterance', text: input.text, intent: route.intent, confidence: route.confidence, slots: route.slots, now: nowIso }
          : { type: 'image', source: input.source, now: nowIso };
      const state = session.scene_states[sceneName] ?? scene.initial();
      let result: StepResult<SceneState>;
      try {
        result = scene.step(state, event);
      } catch (err) {
        throw new LampError(ErrorCode.SCENE_STEP_FAILED, `scene ${sceneName} failed: ${(err as Error).message}`, { scene: sceneName }, { cause: err });
      }
      const next: Session = {
        ...session,
        scene_states: { ...session.scene_states, [sceneName]: result.state },
        last_intent: { intent: route.intent, confidence: route.confidence },
        last_activity: nowIso,
        updated_at: nowIso,
      };
      this.deps.sessions.save(next);
      for (const e of result.effects) if (e.type === 'persist') this.deps.outbox.append(e.stream, e.data, 1, now);
      this.deps.outbox.append('event', { kind: 'turn', trace_id: traceId, scene: sceneName, intent: route.intent, confidence: route.confidence }, 1, now);
      return { session: next, result, route };
    })();

    log.info({ scene: committed.session.active_scene, intent: committed.route.intent, confidence: committed.route.confidence }, 'turn routed');
    await this.deps.runEffects(
      committed.result.effects.filter((e) => e.type !== 'persist'),
      { traceId, log },
    );
    this.turns++;
    const out = this.reply(committed.session, traceId, t0, committed.result.reply, committed.result.state.phase, null);
    log.info({ ms: out.processing_time_ms }, 'turn done');
    return out;
  }

  private reply(
    session: Session,
    traceId: string,
    t0: number,
    reply: { text: string; card?: StepResult['reply']['card']; suggestedActions?: string[] },
    phase: string,
    error: ResponseEnvelope['error'],
  ): ResponseEnvelope {
    return envelope({
      success: error === null,
      content: { type: reply.card ? 'card' : 'text', text: reply.text, card: reply.card ?? null, speech: reply.text },
      trace_id: traceId,
      session_id: session.id,
      scene: session.active_scene,
      phase,
      suggested_actions: reply.suggestedActions ?? [],
      need_tts: reply.text.length > 0,
      error,
      processing_time_ms: Math.round((performance.now() - t0) * 1000) / 1000,
    });
  }
}
