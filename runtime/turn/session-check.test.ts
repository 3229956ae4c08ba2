import { describe, expect, it } from 'vitest';
import { validateSession } from './session-check.js';
import { type Session, newSession } from './session.js';

const T = new Date(2026, 10, 22, 15, 0, 0); // local time, 15:00
const minutes = (m: number): Date => new Date(T.getTime() + m * 60_000);

function reciting(lastActivity: Date): Session {
  return { ...newSession('default', lastActivity), active_scene: 'recite', scene_states: { recite: { phase: 'listening', material_id: 'jing-ye-si' } }, sticky_until: minutes(2).toISOString(), last_activity: lastActivity.toISOString() };
}

describe('validateSession', () => {
  it('keeps a recent learning scene as it is', () => {
    const s = reciting(T);
    expect(validateSession(s, 'default', minutes(5), 30)).toEqual({ session: s });
  });

  it('resets a learning scene idle longer than the timeout to chat, keeping its saved state', () => {
    const r = validateSession(reciting(T), 'default', minutes(31), 30);
    expect(r.reset).toBe('idle_timeout');
    expect(r.session.active_scene).toBe('chat');
    expect(r.session.scene_states.chat).toEqual({ phase: 'idle', turns: 0 });
    expect(r.session.scene_states.recite).toEqual({ phase: 'listening', material_id: 'jing-ye-si' });
    expect(r.session.pending_switch).toBeNull();
    expect(r.session.sticky_until).toBeNull();
  });

  it('resets a learning scene left over from another day even when recent', () => {
    const lateNight = new Date(2026, 10, 21, 23, 55);
    const r = validateSession(reciting(lateNight), 'default', new Date(2026, 10, 22, 0, 5), 30);
    expect(r.reset).toBe('another_day');
  });

  it('a clock that went backwards does not reset by itself', () => {
    const r = validateSession(reciting(minutes(60)), 'default', T, 30);
    expect(r.reset).toBeUndefined();
    expect(r.session.active_scene).toBe('recite');
  });

  it('chat stays chat; an old unanswered confirmation question is dropped', () => {
    const s = { ...newSession('default', T) };
    expect(validateSession(s, 'default', minutes(60 * 48), 30).reset).toBeUndefined();
    const asking: Session = { ...s, pending_switch: { target: 'recite', slots: {}, age_turns: 0 }, scene_states: { chat: { phase: 'handoff_wait', turns: 3 } } };
    expect(validateSession(asking, 'default', minutes(5), 30)).toEqual({ session: asking });
    const r = validateSession(asking, 'default', minutes(60 * 5), 30);
    expect(r.reset).toBe('idle_timeout');
    expect(r.session).toMatchObject({ active_scene: 'chat', pending_switch: null, scene_states: { chat: { phase: 'idle', turns: 3 } } });
  });

  it('a stored session that is not a session starts fresh, saying why', () => {
    for (const raw of [undefined, { active_scene: 'dance' }, 'text']) {
      const r = validateSession(raw, 'default', T, 30);
      expect(r.reset).toBe('corrupt');
      expect(r.session.active_scene).toBe('chat');
    }
  });
});
