import { units } from '../../models/intent/features.js';
import type { Confidence, Intent, SceneName, Slots } from '../../scenes/types.js';
import { checkUtterance } from './input.js';
import type { Route } from './router.js';
import type { PendingSwitch, Session } from './session.js';

/**
 * The decision centre. The router only classifies; these pure functions decide what the turn
 * does; the orchestrator (pipeline) carries the decision out; scenes own their inner phases.
 */

export type Action = 'continue' | 'switch' | 'exit' | 'reject';

export type Reason =
  | 'input_empty'
  | 'input_too_long'
  | 'input_control_chars'
  | 'confirmed'
  | 'declined'
  | 'chat'
  | 'start_scene'
  | 'confirm_start'
  | 'clarify'
  | 'in_scene'
  | 'same_scene_request'
  | 'exit'
  | 'confirm_exit'
  | 'switch_high'
  | 'confirm_switch'
  | 'switch_not_sticky'
  | 'low_confidence_stays';

export interface Decision {
  action: Action;
  /** The scene active when the turn arrived. */
  scene: SceneName;
  /** The scene that handles the turn. */
  target_scene: SceneName;
  reason: Reason;
  confidence: Confidence;
  intent: Intent;
  /** A question or notice from the guardrails to a child in a learning scene; when set, the scene is not stepped. The chat scene words its own replies. */
  message: string | null;
  slots: Slots;
  /** The session's pending switch after this turn. */
  pending_switch: PendingSwitch | null;
  /** True when a pending switch was dropped because it was not answered within its turns. */
  pending_expired: boolean;
}

export interface GuardConfig {
  /** A pending confirmation is dropped after this many turns without an answer. */
  pendingMaxTurns: number;
  /** How long after its last turn a learning scene keeps MID-confidence requests to leave. */
  stickySeconds: number;
}

export const DEFAULT_GUARD: GuardConfig = { pendingMaxTurns: 2, stickySeconds: 120 };

const SCENE_WORDS: Record<SceneName, string> = { chat: '聊天', recite: '背诵', homework: '检查作业' };

export const MESSAGES = {
  declined: '好的，那我们接着来。',
  confirmExit: '你是想先不做了吗？说“是”我们就休息一下。',
  confirmSwitch: (target: SceneName): string => `你是想去${SCENE_WORDS[target]}吗？说“是”我们就去。`,
} as const;

const YES = /^(好|好的|好啊|好呀|好吧|是|是的|是啊|对|对的|对呀|对啊|嗯|嗯嗯|要|要的|可以|行|当然|没错|ok|okay|yes|yeah|yep|sure)+$/;
const NO = /^(不|不要|不用|不是|不了|不想|没有|别|no|nope|不用了|不要了|不去)+$/;

export function confirmation(text: string): 'yes' | 'no' | undefined {
  const t = units(text).join('');
  if (YES.test(t)) return 'yes';
  if (NO.test(t)) return 'no';
  return undefined;
}

function isLearning(scene: SceneName): boolean {
  return scene !== 'chat';
}

function targetOf(intent: Intent, active: SceneName): SceneName {
  if (intent === 'recite' || intent === 'homework' || intent === 'chat') return intent;
  return intent === 'exit_current' ? 'chat' : active;
}

export interface GuardInput {
  text: string;
  session: Session;
  route: Route;
  now: Date;
}

export function decide(input: GuardInput, config: GuardConfig = DEFAULT_GUARD): Decision {
  const { session, route } = input;
  const active = session.active_scene;
  const base = { scene: active, confidence: route.confidence, intent: route.intent, slots: route.slots, message: null, pending_expired: false };

  const check = checkUtterance(input.text);
  if (!check.ok) {
    return { ...base, action: 'reject', target_scene: active, reason: `input_${check.reason}` as Reason, message: check.message, pending_switch: session.pending_switch };
  }

  let pendingExpired = false;
  const pending = session.pending_switch;
  if (pending) {
    const answer = confirmation(check.text);
    if (answer === 'yes') {
      const action: Action = pending.target === 'chat' ? 'exit' : 'switch';
      return { ...base, action, target_scene: pending.target, reason: 'confirmed', slots: pending.slots, pending_switch: null };
    }
    if (answer === 'no') {
      // In chat the chat scene answers a decline itself (it leaves its handoff_wait phase).
      return { ...base, action: 'continue', target_scene: active, reason: 'declined', message: isLearning(active) ? MESSAGES.declined : null, pending_switch: null };
    }
    pendingExpired = pending.age_turns + 1 >= config.pendingMaxTurns;
  }
  const agedPending = pending && !pendingExpired ? { ...pending, age_turns: pending.age_turns + 1 } : null;
  const decision = decideFresh({ ...input, text: check.text }, config, agedPending);
  return { ...decision, pending_expired: pendingExpired };
}

function decideFresh(input: GuardInput, config: GuardConfig, pending: PendingSwitch | null): Decision {
  const { session, route, now } = input;
  const active = session.active_scene;
  const { intent, confidence, slots } = route;
  const target = targetOf(intent, active);
  const base = { scene: active, confidence, intent, slots, pending_expired: false };
  const stay = (reason: Reason, message: string | null = null, keep = pending): Decision => ({ ...base, action: 'continue', target_scene: active, reason, message, pending_switch: keep });

  if (!isLearning(active)) {
    if (confidence === 'LOW') return stay('clarify');
    if (target === 'chat' || target === active) return stay('chat');
    if (confidence === 'HIGH') return { ...base, action: 'switch', target_scene: target, reason: 'start_scene', message: null, pending_switch: null };
    // MID: the chat scene asks (its handoff_wait phase); the pending entry remembers the target.
    return stay('confirm_start', null, { target, slots, age_turns: 0 });
  }

  if (intent === 'continue_current') return stay('in_scene');
  if (target === active) return stay('same_scene_request');
  if (confidence === 'LOW') return stay('low_confidence_stays');
  if (intent === 'exit_current') {
    if (confidence === 'HIGH') return { ...base, action: 'exit', target_scene: 'chat', reason: 'exit', message: null, pending_switch: null };
    return stay('confirm_exit', MESSAGES.confirmExit, { target: 'chat', slots: {}, age_turns: 0 });
  }
  if (confidence === 'HIGH') return { ...base, action: 'switch', target_scene: target, reason: 'switch_high', message: null, pending_switch: null };
  const sticky = session.sticky_until !== null && now.getTime() < Date.parse(session.sticky_until);
  if (sticky) return stay('confirm_switch', MESSAGES.confirmSwitch(target), { target, slots, age_turns: 0 });
  return { ...base, action: 'switch', target_scene: target, reason: 'switch_not_sticky', message: null, pending_switch: null };
}

/** The sticky window after a turn that ends in a learning scene; none in chat. */
export function stickyUntil(scene: SceneName, now: Date, config: GuardConfig = DEFAULT_GUARD): string | null {
  return isLearning(scene) ? new Date(now.getTime() + config.stickySeconds * 1000).toISOString() : null;
}
