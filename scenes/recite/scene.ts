import type { Card, Scene, SceneState, Slots, StepResult } from '../types.js';
import { builtinLibrary } from './library.js';
import type { ContentLibrary, Material } from './material.js';

export interface ReciteState extends SceneState {
  phase: 'idle' | 'listening' | 'done';
  material_id: string | null;
  attempts: number;
}

function card(m: Material): Card {
  return { kind: 'recite', title: `《${m.title}》`, subtitle: [m.dynasty, m.author].filter(Boolean).join(' · '), lines: m.text.split('\n') };
}

function out(state: ReciteState, text: string, c?: Card): StepResult<ReciteState> {
  const effects: StepResult['effects'] = [{ type: 'speak', text }];
  if (c) effects.push({ type: 'show_card', card: c });
  return { state, reply: { text, card: c }, effects };
}

/**
 * The recitation scene, phases idle → listening → done. This is its entry half: picking the
 * material from the router's slot, announcing it and projecting it. Checking an attempt
 * character by character arrives with the recitation issue; until then an attempt is
 * acknowledged honestly, without a score.
 */
export function createReciteScene(library: ContentLibrary = builtinLibrary()): Scene<ReciteState> {
  const start = (state: ReciteState, slots: Slots): StepResult<ReciteState> | undefined => {
    const m = slots.material ? library.byTitle(slots.material) : undefined;
    if (!m) return undefined;
    return out({ ...state, phase: 'listening', material_id: m.id, attempts: 0 }, `我们来背《${m.title}》。准备好了就开始背吧！`, card(m));
  };
  const ask = (state: ReciteState): StepResult<ReciteState> => out({ ...state, phase: 'idle', material_id: null }, '你想背哪一首呀？说出题目或者第一句就可以。');

  return {
    name: 'recite',
    initial: () => ({ phase: 'idle', material_id: null, attempts: 0 }),
    step(state, event) {
      if (event.type === 'enter') {
        const started = start(state, event.slots);
        if (started) return started;
        const current = state.material_id ? library.get(state.material_id) : undefined;
        if (event.resumed && current && state.phase === 'listening') return out(state, `我们接着背《${current.title}》吧。`, card(current));
        return ask(state);
      }
      if (event.type === 'image') return out(state, '我们正在背诵呢，背完再看本子好吗？');
      const started = start(state, event.slots);
      if (started) return started;
      const current = state.material_id ? library.get(state.material_id) : undefined;
      if (state.phase !== 'listening' || !current) return ask(state);
      return out({ ...state, attempts: state.attempts + 1 }, '我听到你背啦！逐字检查的本领我还在学，先看着投影再背一遍吧。', card(current));
    },
  };
}
