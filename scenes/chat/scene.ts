import type { Scene, SceneState } from '../types.js';
import { IMAGE_REPLY, OFFLINE_REPLIES } from './replies.js';

export interface ChatState extends SceneState {
  phase: 'idle';
  turns: number;
}

/** Picks a reply by the utterance's text so the same words always get the same answer (pure). */
function pick(text: string, turns: number): string {
  let h = turns;
  for (const ch of text) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return OFFLINE_REPLIES[h % OFFLINE_REPLIES.length] as string;
}

export const chatScene: Scene<ChatState> = {
  name: 'chat',
  initial: () => ({ phase: 'idle', turns: 0 }),
  step(state, event) {
    const turns = state.turns + 1;
    const text = event.type === 'image' ? IMAGE_REPLY : pick(event.type === 'utterance' ? event.text : '', state.turns);
    return {
      state: { ...state, phase: 'idle', turns },
      reply: { text, card: { kind: 'chat', lines: [text] } },
      effects: [{ type: 'speak', text }, { type: 'show_card', card: { kind: 'chat', lines: [text] } }],
    };
  },
};
