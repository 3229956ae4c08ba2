import type { Card, Scene, SceneState, StepResult } from '../types.js';
import { CHAT_TEXT, offlineReply } from './replies.js';

export interface ChatState extends SceneState {
  phase: 'idle' | 'clarify' | 'handoff_wait';
  turns: number;
}

function say(state: ChatState, text: string, phase: ChatState['phase']): StepResult<ChatState> {
  const card: Card = { kind: 'chat', lines: [text] };
  return { state: { ...state, phase, turns: state.turns + 1 }, reply: { text, card }, effects: [{ type: 'speak', text }, { type: 'show_card', card }] };
}

/**
 * The chat scene. `clarify` asks one question when the router was unsure (LOW) — once: if the
 * next turn is unclear again it simply answers; `handoff_wait` asks to confirm a switch that
 * the router was only fairly sure of (MID). Offline it answers from a small set of kind replies.
 * When the cloud is reachable the runtime asks its `chat` method first (within a deadline) and
 * hands the answer in as `context.cloudReply`; offline, or when it is late, the offline reply.
 */
export const chatScene: Scene<ChatState> = {
  name: 'chat',
  initial: () => ({ phase: 'idle', turns: 0 }),
  step(state, event) {
    switch (event.type) {
      case 'enter':
        return say(state, CHAT_TEXT.back(event.from), 'idle');
      case 'image':
        return say(state, CHAT_TEXT.image, 'idle');
      case 'result':
        return { state, reply: { text: '' }, effects: [] };
      case 'utterance': {
        const { reason, target } = event.guard;
        if (reason === 'confirm_start' && target) return say(state, CHAT_TEXT.handoff(target), 'handoff_wait');
        if (reason === 'declined') return say(state, CHAT_TEXT.declined, 'idle');
        if (reason === 'clarify' && state.phase !== 'clarify') return say(state, CHAT_TEXT.clarify, 'clarify');
        // The cloud's answer when the runtime could get one in time; the offline reply otherwise.
        const cloud = (event.context as { cloudReply?: unknown } | undefined)?.cloudReply;
        return say(state, typeof cloud === 'string' && cloud.trim() ? cloud.trim() : offlineReply(event.text, state.turns), 'idle');
      }
    }
  },
};
