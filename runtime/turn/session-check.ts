import { z } from 'zod';
import { type Session, newSession } from './session.js';

const sceneName = z.enum(['chat', 'recite', 'homework']);
const slots = z.object({ material: z.string().optional(), subject: z.string().optional() });

export const sessionSchema = z.object({
  id: z.string(),
  active_scene: sceneName,
  scene_states: z.partialRecord(sceneName, z.looseObject({ phase: z.string() })),
  pending_switch: z.object({ target: sceneName, slots, age_turns: z.number().int().min(0) }).nullable(),
  sticky_until: z.string().nullable(),
  last_intent: z.object({ intent: z.enum(['chat', 'recite', 'homework', 'continue_current', 'exit_current']), confidence: z.enum(['HIGH', 'MID', 'LOW']) }).nullable(),
  last_activity: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export type ResetReason = 'corrupt' | 'another_day' | 'idle_timeout';

function localDay(d: Date): string {
  return d.toLocaleDateString('en-CA'); // the device's time zone
}

/**
 * Validates a stored session on read. A learning scene left over from another day, or idle for
 * longer than the timeout (e.g. the lamp restarted in the middle of a recitation last night),
 * is reset to chat/idle; the scene's saved state is kept so the child can pick it up again.
 * A clock that went backwards never triggers a reset by itself.
 */
export function validateSession(raw: unknown, id: string, now: Date, idleMinutes: number): { session: Session; reset?: ResetReason } {
  const parsed = sessionSchema.safeParse(raw);
  if (!parsed.success) return { session: newSession(id, now), reset: 'corrupt' };
  const s = parsed.data as Session;
  const last = new Date(s.last_activity);
  const idleMs = now.getTime() - last.getTime();
  const reason: ResetReason | undefined = idleMs < 0 ? undefined : localDay(now) !== localDay(last) ? 'another_day' : idleMs > idleMinutes * 60_000 ? 'idle_timeout' : undefined;
  if (!reason) return { session: s };
  if (s.active_scene === 'chat') {
    // Chat stays chat, but yesterday's unanswered question ("你是想背诵吗?") must not be
    // answered by this morning's first "好".
    const chat = s.scene_states.chat;
    if (!s.pending_switch && (!chat || chat.phase === 'idle')) return { session: s };
    return { session: { ...s, pending_switch: null, scene_states: { ...s.scene_states, chat: { ...chat, phase: 'idle' } } }, reset: reason };
  }
  return {
    session: { ...s, active_scene: 'chat', pending_switch: null, sticky_until: null, scene_states: { ...s.scene_states, chat: { phase: 'idle', turns: 0 } } },
    reset: reason,
  };
}
