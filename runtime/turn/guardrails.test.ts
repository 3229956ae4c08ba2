import { describe, expect, it } from 'vitest';
import type { Confidence, Intent, SceneName, Slots } from '../../scenes/types.js';
import { type Decision, MESSAGES, confirmation, decide, stickyUntil } from './guardrails.js';
import type { Route } from './router.js';
import { type PendingSwitch, type Session, newSession } from './session.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const LATER = new Date(NOW.getTime() + 60_000).toISOString();
const EARLIER = new Date(NOW.getTime() - 60_000).toISOString();

function session(active: SceneName, extra: Partial<Session> = {}): Session {
  return { ...newSession('s', NOW), active_scene: active, ...extra };
}
function route(intent: Intent, confidence: Confidence, slots: Slots = {}): Route {
  return { intent, confidence, slots, probability: confidence === 'HIGH' ? 0.99 : confidence === 'MID' ? 0.7 : 0.3 };
}
const pending = (target: SceneName, age = 0, slots: Slots = {}): PendingSwitch => ({ target, slots, age_turns: age });

type Row = [name: string, text: string, s: Session, r: Route, expected: Partial<Decision>];

const TABLE: Row[] = [
  // input checks
  ['empty input is rejected', '  ', session('chat'), route('chat', 'HIGH'), { action: 'reject', reason: 'input_empty' }],
  ['too long is rejected', '字'.repeat(5001), session('recite'), route('continue_current', 'HIGH'), { action: 'reject', reason: 'input_too_long', target_scene: 'recite' }],
  ['control characters are rejected', 'a\u0000b', session('chat'), route('chat', 'HIGH'), { action: 'reject', reason: 'input_control_chars' }],
  // chat scene
  ['chat stays chat', '你好', session('chat'), route('chat', 'HIGH'), { action: 'continue', reason: 'chat', target_scene: 'chat' }],
  ['continue_current in chat is chat', '然后呢', session('chat'), route('continue_current', 'HIGH'), { action: 'continue', reason: 'chat' }],
  ['exit in chat stays chat', '拜拜', session('chat'), route('exit_current', 'HIGH'), { action: 'continue', reason: 'chat' }],
  ['LOW in chat asks what the child meant', '嗯嗯那个', session('chat'), route('recite', 'LOW'), { action: 'continue', reason: 'clarify', pending_switch: null }],
  ['HIGH recite from chat switches with the slot', '我要背静夜思', session('chat'), route('recite', 'HIGH', { material: '静夜思' }), { action: 'switch', reason: 'start_scene', target_scene: 'recite', slots: { material: '静夜思' } }],
  ['MID homework from chat asks first and remembers the target', '作业', session('chat'), route('homework', 'MID', { subject: '数学' }), { action: 'continue', reason: 'confirm_start', message: null, pending_switch: pending('homework', 0, { subject: '数学' }) }],
  // pending switch
  ['yes confirms a pending switch with its slots', '好的', session('chat', { pending_switch: pending('recite', 0, { material: '春晓' }) }), route('chat', 'HIGH'), { action: 'switch', reason: 'confirmed', target_scene: 'recite', slots: { material: '春晓' }, pending_switch: null }],
  ['yes to a pending exit exits', '是的', session('recite', { pending_switch: pending('chat') }), route('continue_current', 'MID'), { action: 'exit', reason: 'confirmed', target_scene: 'chat' }],
  ['no in chat clears the pending switch (chat words the reply)', '不要', session('chat', { pending_switch: pending('recite') }), route('exit_current', 'MID'), { action: 'continue', reason: 'declined', message: null, pending_switch: null }],
  ['no in a learning scene continues it with a notice', '不用', session('recite', { pending_switch: pending('homework') }), route('exit_current', 'MID'), { action: 'continue', reason: 'declined', message: MESSAGES.declined, pending_switch: null }],
  ['an unrelated answer ages the pending entry', '你好呀', session('chat', { pending_switch: pending('recite', 0) }), route('chat', 'HIGH'), { action: 'continue', reason: 'chat', pending_switch: pending('recite', 1), pending_expired: false }],
  ['the pending entry expires after N turns', '你好呀', session('chat', { pending_switch: pending('recite', 1) }), route('chat', 'HIGH'), { action: 'continue', reason: 'chat', pending_switch: null, pending_expired: true }],
  // learning scenes
  ['continue_current keeps the scene', '床前明月光', session('recite'), route('continue_current', 'HIGH'), { action: 'continue', reason: 'in_scene', target_scene: 'recite' }],
  ['asking for the same scene continues it with the new slot', '换一首春晓', session('recite'), route('recite', 'HIGH', { material: '春晓' }), { action: 'continue', reason: 'same_scene_request', slots: { material: '春晓' } }],
  ['LOW requests to leave do not leave', '嗯', session('homework', { sticky_until: LATER }), route('chat', 'LOW'), { action: 'continue', reason: 'low_confidence_stays', target_scene: 'homework' }],
  ['HIGH exit returns to chat', '不背了', session('recite', { sticky_until: LATER }), route('exit_current', 'HIGH'), { action: 'exit', reason: 'exit', target_scene: 'chat' }],
  ['MID exit asks first', '算了吧', session('recite', { sticky_until: LATER }), route('exit_current', 'MID'), { action: 'continue', reason: 'confirm_exit', message: MESSAGES.confirmExit, pending_switch: pending('chat') }],
  ['HIGH other scene switches even while sticky', '帮我检查作业', session('recite', { sticky_until: LATER }), route('homework', 'HIGH'), { action: 'switch', reason: 'switch_high', target_scene: 'homework' }],
  ['MID other scene while sticky asks first', '作业', session('recite', { sticky_until: LATER }), route('homework', 'MID'), { action: 'continue', reason: 'confirm_switch', message: MESSAGES.confirmSwitch('homework'), pending_switch: pending('homework') }],
  ['MID other scene after stickiness lapsed switches', '作业', session('recite', { sticky_until: EARLIER }), route('homework', 'MID'), { action: 'switch', reason: 'switch_not_sticky', target_scene: 'homework' }],
  ['MID chat question in a sticky scene asks first', '为什么天是蓝的', session('homework', { sticky_until: LATER }), route('chat', 'MID'), { action: 'continue', reason: 'confirm_switch', pending_switch: pending('chat') }],
];

describe('guardrails.decide', () => {
  it.each(TABLE)('%s', (_name, text, s, r, expected) => {
    expect(decide({ text, session: s, route: r, now: NOW })).toMatchObject(expected);
  });

  it('every reason is covered by the table', () => {
    const reasons = new Set(TABLE.map(([, text, s, r]) => decide({ text, session: s, route: r, now: NOW }).reason));
    expect([...reasons].sort()).toEqual(
      ['chat', 'clarify', 'confirm_exit', 'confirm_start', 'confirm_switch', 'confirmed', 'declined', 'exit', 'in_scene', 'input_control_chars', 'input_empty', 'input_too_long', 'low_confidence_stays', 'same_scene_request', 'start_scene', 'switch_high', 'switch_not_sticky'].sort(),
    );
  });
});

describe('confirmation', () => {
  it.each([['好的', 'yes'], ['嗯嗯', 'yes'], ['是的！', 'yes'], ['OK', 'yes'], ['不要', 'no'], ['不用了', 'no'], ['no', 'no'], ['我要背春晓', undefined], ['好的我要背春晓', undefined]])('%s → %s', (text, answer) => {
    expect(confirmation(text)).toBe(answer);
  });
});

describe('stickyUntil', () => {
  it('is set in learning scenes only', () => {
    expect(stickyUntil('recite', NOW)).toBe(new Date(NOW.getTime() + 120_000).toISOString());
    expect(stickyUntil('chat', NOW)).toBeNull();
  });
});
