import type { Card, Effect, Scene, SceneEvent, SceneState, Slots, StepResult } from '../types.js';
import { buildFeedback } from './feedback.js';
import { builtinLibrary } from './library.js';
import type { ContentLibrary, Material } from './material.js';
import { type PatternMemory, patternContent } from './patterns.js';
import { INTERVAL_DAYS, type ReviewEntry, isReview, nextSchedule } from './schedule.js';
import { scoreRecitation, unitsOf, languageOf } from './score.js';

export interface ReciteState extends SceneState {
  phase: 'idle' | 'listening' | 'done';
  material_id: string | null;
  attempts: number;
  /** When the child was invited to recite: the attempt's duration is measured from here. */
  started_at: string | null;
  is_review: boolean;
}

/** What the runtime reads for the scene before each step. */
export interface ReciteContext {
  patterns: PatternMemory[];
  schedule: ReviewEntry[];
}

const EMPTY: ReciteContext = { patterns: [], schedule: [] };
const HINT = /提示|下一句|忘了|忘记|想不起|不会背|hint|forgot|next line/i;

function card(m: Material): Card {
  return { kind: 'recite', title: `《${m.title}》`, subtitle: [m.dynasty, m.author].filter(Boolean).join(' · '), lines: m.text.split('\n') };
}

function out(state: ReciteState, text: string, c?: Card, extra: Effect[] = []): StepResult<ReciteState> {
  const effects: Effect[] = [{ type: 'speak', text }];
  if (c) effects.push({ type: 'show_card', card: c });
  return { state, reply: { text, card: c }, effects: [...effects, ...extra] };
}

function contextOf(event: SceneEvent): ReciteContext {
  return (event.type === 'enter' || event.type === 'utterance') && event.context ? (event.context as ReciteContext) : EMPTY;
}

/**
 * The recitation scene, phases idle → listening → done.
 * idle: pick the material (the router's slot, else a review due now, else ask), announce it and
 * project it → listening. listening: an utterance that is mostly the text is an attempt — score
 * it, give feedback, record it (history, error memory, review schedule, upward records, all in
 * the turn's transaction) and → done when passed, else invite one more try; anything else gets
 * a hint or a gentle nudge. done: like idle for the next request.
 */
export function createReciteScene(library: ContentLibrary = builtinLibrary()): Scene<ReciteState> {
  const begin = (state: ReciteState, m: Material, now: string, ctx: ReciteContext, lead: string): StepResult<ReciteState> => {
    const review = isReview(
      ctx.schedule.find((s) => s.material_id === m.id),
      now,
    );
    const text = `${lead}《${m.title}》${review ? '，今天该复习它啦' : ''}。准备好了就开始背吧！`;
    return out({ ...state, phase: 'listening', material_id: m.id, attempts: 0, started_at: now, is_review: review }, text, card(m));
  };

  const pick = (state: ReciteState, slots: Slots, now: string, ctx: ReciteContext): StepResult<ReciteState> | undefined => {
    const named = slots.material ? library.byTitle(slots.material) : undefined;
    if (named) return begin(state, named, now, ctx, '我们来背');
    const due = [...ctx.schedule].filter((s) => Date.parse(s.due_at) <= Date.parse(now)).sort((a, b) => a.due_at.localeCompare(b.due_at));
    const review = due.map((s) => library.get(s.material_id)).find((x): x is Material => x !== undefined);
    return review ? begin(state, review, now, ctx, '我们来复习') : undefined;
  };

  const ask = (state: ReciteState): StepResult<ReciteState> => out({ ...state, phase: 'idle', material_id: null, started_at: null }, '你想背哪一首呀？说出题目或者第一句就可以。');

  const attempt = (state: ReciteState, m: Material, text: string, now: string, ctx: ReciteContext): StepResult<ReciteState> | undefined => {
    const result = scoreRecitation(m.text, text);
    const lang = languageOf(m.text);
    const expectedLen = unitsOf(m.text, lang).length;
    const recitedLen = unitsOf(text, lang).length;
    const correct = Math.round((result.accuracy * expectedLen) / 100);
    if (recitedLen === 0 || correct < Math.min(4, expectedLen) || correct < recitedLen * 0.5) return undefined;

    const fb = buildFeedback(m, result, ctx.patterns, patternContent);
    const entry = ctx.schedule.find((s) => s.material_id === m.id);
    const schedule = nextSchedule(entry, { material_id: m.id, accuracy: result.accuracy, passed: !result.need_retry, at: now });
    const moved = schedule && schedule !== entry ? schedule : undefined;
    let spoken = fb.text;
    let shown = fb.card;
    if (moved) {
      const days = INTERVAL_DAYS[moved.step] as number;
      spoken += days === 1 ? '明天我们再复习一次。' : `${days} 天后再复习一次。`;
      shown = { ...fb.card, next_review: moved.due_at };
    }
    const record: Effect = {
      type: 'learning_record',
      kind: 'recitation_attempt',
      data: {
        material_id: m.id,
        expected: m.text,
        recited: text,
        accuracy: result.accuracy,
        need_retry: result.need_retry,
        errors: result.errors,
        is_review: state.is_review,
        duration_ms: state.started_at ? Math.max(0, Date.parse(now) - Date.parse(state.started_at)) : 0,
        at: now,
        pattern_updates: fb.updates,
        schedule: moved ?? null,
      },
    };
    const gesture: Effect = { type: 'servo_gesture', gesture: result.need_retry ? 'shake' : 'nod' };
    const next: ReciteState = result.need_retry
      ? { ...state, phase: 'listening', attempts: state.attempts + 1, started_at: now }
      : { ...state, phase: 'done', attempts: state.attempts + 1, started_at: null };
    return out(next, spoken, shown, [record, gesture]);
  };

  return {
    name: 'recite',
    initial: () => ({ phase: 'idle', material_id: null, attempts: 0, started_at: null, is_review: false }),
    step(state, event) {
      if (event.type === 'image') return out(state, '我们正在背诵呢，背完再看本子好吗？');
      if (event.type === 'result') return { state, reply: { text: '' }, effects: [] }; // the recitation's cloud answers come through CloudUpgrades
      const ctx = contextOf(event);
      const current = state.material_id ? library.get(state.material_id) : undefined;
      if (event.type === 'enter') {
        if (event.resumed && !event.slots.material && current && state.phase === 'listening') return out(state, `我们接着背《${current.title}》吧。`, card(current));
        return pick(state, event.slots, event.now, ctx) ?? ask(state);
      }
      const named = event.slots.material ? library.byTitle(event.slots.material) : undefined;
      if (named && named.id !== current?.id) return begin(state, named, event.now, ctx, '好的，换成');
      if (state.phase !== 'listening' || !current) return pick(state, event.slots, event.now, ctx) ?? ask(state);
      const scored = attempt(state, current, event.text, event.now, ctx);
      if (scored) return scored;
      if (HINT.test(event.text)) {
        const first = current.text.split(/[，。！？；：、,.!?;:\n]/)[0] ?? '';
        return out(state, `给你一个提示：${first}……接着背吧！`, card(current));
      }
      return out(state, `我们在背《${current.title}》，准备好了就从头背给我听吧。`, card(current));
    },
  };
}
