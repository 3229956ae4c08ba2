import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Effect, Scene, SceneEvent, SceneName, SceneState, StepResult } from '../../scenes/types.js';
import type { SqliteOutbox } from '../../sync/outbox.js';
import { ErrorCode, LampError, formatCode } from '../errors.js';
import { type Logger, utteranceForLog } from '../log.js';
import { DEFAULT_GUARD, type Decision, type GuardConfig, decide, stickyUntil } from './guardrails.js';
import { checkUtterance } from './input.js';
import { type ResponseEnvelope, envelope } from './response.js';
import type { Route, Router } from './router.js';
import { DEFAULT_SESSION_ID, type Session, type SessionStore } from './session.js';

export type TurnInput =
  | { type: 'utterance'; text: string; source: string }
  /** A photo of what is under the lamp: always for the homework scene. */
  | { type: 'image'; source: string }
  /** A cloud answer (live or delivered later) for the scene that asked; the active scene does not change. */
  | { type: 'result'; scene: SceneName; method: string; request_id: string; result: Record<string, unknown>; source: string };

type LearningKind = Extract<Effect, { type: 'learning_record' }>['kind'];

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
  guard?: GuardConfig;
  idleResetMinutes?: () => number;
  /** What a scene needs read before its step (e.g. recitation memory), passed as the event's context. */
  sceneContext?: Partial<Record<SceneName, () => unknown>>;
  /**
   * Asked before a turn's transaction, with the active scene and the route: what the scene
   * needs from the cloud (e.g. an answer to an open question), within its deadline. Whatever it
   * returns is added to the scene event's context; it must resolve, never reject.
   */
  prepare?: (scene: SceneName, route: Route, text: string, log: Logger) => Promise<Record<string, unknown> | undefined>;
  /** Stores learning records inside the turn's transaction, by kind. */
  records?: Partial<Record<LearningKind, (data: Record<string, unknown>, now: Date) => void>>;
  /**
   * Looks at the camera's frame for an image turn, before the transaction (a page check takes
   * about a second): the result is the image event's context. Must resolve, never reject.
   */
  inspectImage?: (source: string, log: Logger) => Promise<unknown>;
  /** Called with the turn's time inside its transaction (the monotonic clock's high-water mark). */
  observeTime?: (now: Date) => void;
  /** Called after every turn, once its effects ran. */
  onTurn?: (envelope: ResponseEnvelope, source: string) => void;
  now?: () => Date;
}

export interface TurnTiming {
  total_ms: number;
  route_us: number;
}

interface Outcome {
  session: Session;
  result: StepResult<SceneState>;
  route: Route;
  decision: Decision | null;
}

const MAX_QUEUED = 16;

const UNAVAILABLE: Partial<Record<SceneName, string>> = {
  homework: '检查作业的本领我还在学，很快就能帮你看啦。我们先背一首古诗好吗？',
  recite: '背诵的本领我还在学，很快就能听你背啦。',
};

function replyOnly(state: SceneState, text: string): StepResult<SceneState> {
  return { state, reply: { text }, effects: [{ type: 'speak', text }] };
}

/**
 * The orchestrator: input → session state → route → guardrails → scene step → response →
 * effects. State, the turn's upward records and the session commit in one transaction before
 * anything is said or shown, so what the child hears is always what was saved. Turns run one
 * at a time.
 */
export class TurnPipeline {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  turns = 0;
  lastTiming: TurnTiming | undefined;

  constructor(private readonly deps: PipelineDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  private waiting = 0;

  /** Turns run one at a time; past MAX_QUEUED waiting turns a new one is refused (a flooding client). */
  handle(input: TurnInput): Promise<ResponseEnvelope> {
    if (this.waiting >= MAX_QUEUED) return Promise.reject(new LampError(ErrorCode.INPUT_REJECTED, `more than ${MAX_QUEUED} turns are waiting; try again in a moment`));
    this.waiting++;
    const run = this.queue.then(() => this.run(input)).finally(() => this.waiting--);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The scene the child is in now (read from the session; for the voice path's VAD preset). */
  activeScene(): SceneName {
    return this.deps.sessions.load(DEFAULT_SESSION_ID, this.now(), this.deps.idleResetMinutes?.() ?? 30).session.active_scene;
  }

  private loadSession(now: Date, log: Logger): Session {
    const { session, reset } = this.deps.sessions.load(DEFAULT_SESSION_ID, now, this.deps.idleResetMinutes?.() ?? 30);
    if (reset) log.info({ reason: reset }, 'session reset to chat');
    return session;
  }

  private scene(name: SceneName): Scene | undefined {
    return this.deps.scenes[name];
  }

  private async run(input: TurnInput): Promise<ResponseEnvelope> {
    const t0 = performance.now();
    const traceId = randomUUID();
    const log = this.deps.log.child({ trace_id: traceId });
    const now = this.now();
    if (input.type === 'utterance') log.info({ source: input.source, ...utteranceForLog(log, input.text) }, 'turn input');
    else log.info({ source: input.source }, `turn input: ${input.type}`);

    let routeUs = 0;
    // Routing is pure and needs only the session (turns run one at a time and only this
    // process writes sessions), so it happens before the transaction — as does anything the
    // scene needs from the cloud, which must not hold the database lock while it waits.
    let routed: Route | undefined;
    let prepared: Record<string, unknown> | undefined;
    let inspected: unknown;
    if (input.type === 'image') inspected = await this.deps.inspectImage?.(input.source, log);
    if (input.type === 'utterance') {
      const before = this.loadSession(now, log);
      // Unusable input is turned away before the router spends any time on it.
      routed = checkUtterance(input.text).ok ? this.routeTimed(input.text, before, (us) => (routeUs = us)) : { intent: 'chat', confidence: 'LOW', slots: {}, probability: 0 };
      prepared = await this.deps.prepare?.(before.active_scene, routed, input.text, log);
    }
    // IMMEDIATE: the turn reads the session and then writes; taking the write lock first means a
    // second writer (e.g. `lamp outbox-load`) makes it wait (busy_timeout), never fail midway.
    const outcome = this.deps.db.transaction((): Outcome => {
      const session = this.loadSession(now, log);
      if (input.type === 'image') return this.imageTurn(session, { source: input.source, context: inspected }, now, traceId);
      if (input.type === 'result') return this.resultTurn(session, input, now, traceId);
      if (!routed) throw new Error('an utterance turn was not routed');
      const decision = decide({ text: input.text, session, route: routed, now }, this.deps.guard ?? DEFAULT_GUARD);
      return this.execute(session, decision, routed, input.text, now, traceId, prepared);
    }).immediate();

    const { session, result, route, decision } = outcome;
    log.info(
      { scene: session.active_scene, intent: route.intent, confidence: route.confidence, action: decision?.action, reason: decision?.reason, slots: route.slots },
      'turn routed',
    );
    // A late cloud answer for a scene the child has left updates that scene quietly.
    const quiet = input.type === 'result' && input.scene !== session.active_scene;
    await this.deps.runEffects(result.effects.filter((e) => e.type !== 'persist' && !(quiet && (e.type === 'speak' || e.type === 'show_card' || e.type === 'servo_gesture'))), { traceId, log });
    this.turns++;
    const rejected = decision?.action === 'reject';
    const out = envelope({
      success: !rejected,
      content: { type: result.reply.card ? 'card' : 'text', text: result.reply.text, card: result.reply.card ?? null, speech: result.reply.text || null },
      trace_id: traceId,
      session_id: session.id,
      scene: session.active_scene,
      phase: result.state.phase,
      suggested_actions: result.reply.suggestedActions ?? [],
      need_tts: result.reply.text.length > 0,
      error: rejected ? { code: formatCode(ErrorCode.INPUT_REJECTED), message: (decision?.reason ?? '').replace(/^input_/, '') } : null,
      processing_time_ms: Math.round((performance.now() - t0) * 1000) / 1000,
    });
    this.lastTiming = { total_ms: out.processing_time_ms, route_us: Math.round(routeUs) };
    log.info({ ms: out.processing_time_ms, route_us: Math.round(routeUs) }, 'turn done');
    this.deps.onTurn?.(out, input.source);
    return out;
  }

  private routeTimed(text: string, session: Session, took: (us: number) => void): Route {
    const t0 = performance.now();
    // A scene that works on one material names it in its state (material_id) while listening.
    const state = session.scene_states[session.active_scene];
    const focus = state?.phase === 'listening' && typeof state.material_id === 'string' ? state.material_id : undefined;
    const r = this.deps.router.route(text, session.active_scene, focus);
    took((performance.now() - t0) * 1000);
    return r;
  }

  private step(name: SceneName, state: SceneState, event: SceneEvent): StepResult<SceneState> {
    const scene = this.scene(name);
    if (!scene) throw new LampError(ErrorCode.SCENE_UNKNOWN, `no scene named ${name}`, { scene: name });
    try {
      return scene.step(state, event);
    } catch (err) {
      throw new LampError(ErrorCode.SCENE_STEP_FAILED, `scene ${name} failed: ${(err as Error).message}`, { scene: name }, { cause: err });
    }
  }

  private stateOf(session: Session, name: SceneName): { state: SceneState; resumed: boolean } {
    const saved = session.scene_states[name];
    const scene = this.scene(name);
    if (saved) return { state: saved, resumed: true };
    return { state: scene ? scene.initial() : { phase: 'idle' }, resumed: false };
  }

  private contextFor(scene: SceneName, prepared?: Record<string, unknown>): unknown {
    const base = this.deps.sceneContext?.[scene]?.();
    return prepared ? { ...(base as Record<string, unknown> | undefined), ...prepared } : base;
  }

  private execute(session: Session, decision: Decision, route: Route, text: string, now: Date, traceId: string, prepared?: Record<string, unknown>): Outcome {
    const nowIso = now.toISOString();
    const active = session.active_scene;
    let target = decision.target_scene;
    let result: StepResult<SceneState>;

    if (decision.action === 'reject') {
      return { session, route, decision, result: replyOnly(this.stateOf(session, active).state, decision.message ?? '') };
    }
    if ((decision.action === 'switch' || decision.action === 'exit') && !this.scene(target)) {
      // A scene this build does not have yet: say so honestly and stay.
      target = active;
      result = replyOnly(this.stateOf(session, active).state, UNAVAILABLE[decision.target_scene] ?? '这个我还不会。');
    } else if (decision.action === 'switch' || decision.action === 'exit') {
      const { state, resumed } = this.stateOf(session, target);
      result = this.step(target, state, { type: 'enter', slots: decision.slots, now: nowIso, resumed, from: active, context: this.contextFor(target) });
    } else if (decision.message) {
      result = replyOnly(this.stateOf(session, active).state, decision.message);
    } else {
      const { state } = this.stateOf(session, active);
      result = this.step(active, state, {
        type: 'utterance',
        text,
        intent: route.intent,
        confidence: route.confidence,
        slots: decision.slots,
        now: nowIso,
        guard: { reason: decision.reason, target: decision.pending_switch?.target },
        context: this.contextFor(active, prepared),
      });
    }

    const next: Session = {
      ...session,
      active_scene: target,
      scene_states: { ...session.scene_states, [target]: result.state },
      pending_switch: decision.pending_switch,
      sticky_until: stickyUntil(target, now, this.deps.guard ?? DEFAULT_GUARD),
      last_intent: { intent: route.intent, confidence: route.confidence },
      last_activity: nowIso,
      updated_at: nowIso,
    };
    this.commit(next, result, now, traceId, { scene: target, intent: route.intent, confidence: route.confidence, action: decision.action, reason: decision.reason });
    return { session: next, result, route, decision };
  }

  /** A page under the lamp means homework: the image goes to the homework scene, which becomes active. */
  private imageTurn(session: Session, input: { source: string; context: unknown }, now: Date, traceId: string): Outcome {
    const nowIso = now.toISOString();
    const target: SceneName = this.scene('homework') ? 'homework' : session.active_scene;
    const { state } = this.stateOf(session, target);
    const result = this.step(target, state, { type: 'image', source: input.source, now: nowIso, context: input.context });
    const next: Session = {
      ...session,
      active_scene: target,
      scene_states: { ...session.scene_states, [target]: result.state },
      pending_switch: target === session.active_scene ? session.pending_switch : null,
      sticky_until: target === session.active_scene ? session.sticky_until : stickyUntil(target, now, this.deps.guard ?? DEFAULT_GUARD),
      last_activity: nowIso,
      updated_at: nowIso,
    };
    const route: Route = { intent: 'continue_current', confidence: 'HIGH', slots: {}, probability: 1 };
    this.commit(next, result, now, traceId, { scene: target, intent: 'image' });
    return { session: next, result, route, decision: null };
  }

  private resultTurn(session: Session, input: Extract<TurnInput, { type: 'result' }>, now: Date, traceId: string): Outcome {
    const nowIso = now.toISOString();
    const { state } = this.stateOf(session, input.scene);
    const result = this.step(input.scene, state, { type: 'result', method: input.method, request_id: input.request_id, result: input.result, now: nowIso });
    const next: Session = { ...session, scene_states: { ...session.scene_states, [input.scene]: result.state }, updated_at: nowIso };
    const route: Route = { intent: 'continue_current', confidence: 'HIGH', slots: {}, probability: 1 };
    this.commit(next, result, now, traceId, { scene: input.scene, intent: 'result', method: input.method });
    return { session: next, result, route, decision: null };
  }

  private commit(next: Session, result: StepResult<SceneState>, now: Date, traceId: string, event: Record<string, unknown>): void {
    this.deps.sessions.save(next);
    this.deps.observeTime?.(now);
    for (const e of result.effects) {
      if (e.type === 'persist') this.deps.outbox.append(e.stream, e.data, 1, now);
      if (e.type === 'learning_record') {
        const store = this.deps.records?.[e.kind];
        if (!store) throw new LampError(ErrorCode.SCENE_STEP_FAILED, `no store for learning records of kind ${e.kind}`, { kind: e.kind });
        store(e.data, now);
      }
    }
    this.deps.outbox.append('event', { kind: 'turn', trace_id: traceId, ...event }, 1, now);
  }
}
