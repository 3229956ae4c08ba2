import type { Card, Effect, Scene, SceneEvent, SceneState, StepResult } from '../types.js';
import { explainItem, ordinalIn, summarise } from './replies.js';
import type { CheckedItem, CloudGrade, PageCheck, Verdict } from './types.js';

export interface HomeworkState extends SceneState {
  phase: 'idle' | 'waiting_page' | 'checked';
  /** Photos of the current page that failed the quality gate in a row. */
  attempts: number;
  check_id: string | null;
  items: CheckedItem[];
  checked_at: string | null;
}

/** Photos the child is asked to fix before the lamp gives up kindly. */
export const MAX_ATTEMPTS = 3;
/** Time for the child to put the book down after asking, and to fix it after a hint. */
export const FIRST_LOOK_MS = 1500;
export const RETRY_LOOK_MS = 3000;

const MARK: Record<Verdict, string> = { correct: '✓', incorrect: '✗', uncertain: '?' };
const AGAIN = /再(检查|看|查)|重新|换一页|下一页|新的一页|又写/;
const READY = /好了|放好|可以了|看吧|拍吧/;
const WHICH_WRONG = /哪(几|些|一)?(道|个)?题.*(错|不对)|错了几道|错在哪/;

export function homeworkCard(items: CheckedItem[], summary: string): Card {
  return {
    kind: 'homework',
    title: '作业检查',
    summary,
    marks: items.map((it) => ({ index: it.index, mark: MARK[it.verdict], verdict: it.verdict, bbox: it.bbox })),
    lines: items.map((it) => `${it.index}. ${it.question}${it.kind === 'fill_blank' || it.kind === 'compare' ? '' : it.student_answer} ${MARK[it.verdict]}`),
  };
}

function out(state: HomeworkState, text: string, extra: Effect[] = [], card?: Card): StepResult<HomeworkState> {
  const effects: Effect[] = [{ type: 'speak', text }];
  if (card) effects.push({ type: 'show_card', card });
  return { state, reply: { text, card }, effects: [...effects, ...extra] };
}

function look(state: HomeworkState, text: string, delayMs: number): StepResult<HomeworkState> {
  return out({ ...state, phase: 'waiting_page' }, text, [{ type: 'capture_page', delayMs }]);
}

/** Items the lamp cannot judge itself: not arithmetic, or not sure enough. */
export function needsCloud(item: CheckedItem): boolean {
  return item.verdict === 'uncertain' && item.judged_by === 'lamp';
}

function graded(state: HomeworkState, check: Extract<PageCheck, { ok: true }>, now: string): StepResult<HomeworkState> {
  if (check.items.length === 0) return retry(state, '我没找到题目，把写了题目的那一页放在灯下面吧。');
  const escalate = check.items.filter(needsCloud);
  const items = check.items.map((it) => (needsCloud(it) ? { ...it, pending_cloud: true } : it));
  const text = summarise(items);
  const card = homeworkCard(items, text);
  const next: HomeworkState = { ...state, phase: 'checked', attempts: 0, check_id: check.check_id, items, checked_at: now };
  const effects: Effect[] = [{ type: 'learning_record', kind: 'homework_check', data: { check_id: check.check_id, items, summary: text } }];
  if (escalate.length > 0) {
    effects.push({ type: 'cloud_call', method: 'grade_homework', request_id: check.check_id, params: { check_id: check.check_id, items: escalate.map((it) => ({ index: it.index, ocr_text: it.question + it.student_answer, kind: it.kind, reason: it.reason ?? null })) } });
  }
  if (items.every((it) => it.verdict === 'correct')) effects.push({ type: 'servo_gesture', gesture: 'nod' });
  return out(next, text, effects, card);
}

function retry(state: HomeworkState, hint: string): StepResult<HomeworkState> {
  const attempts = state.attempts + 1;
  if (attempts >= MAX_ATTEMPTS) return out({ ...state, phase: 'idle', attempts: 0 }, `${hint}。我还是看不太清楚，我们调一调再试，准备好了说“检查作业”。`.replace('。。', '。'));
  return look({ ...state, attempts }, hint, RETRY_LOOK_MS);
}

/** Merges the cloud's verdicts into the page the child is looking at. */
function merge(state: HomeworkState, grades: CloudGrade[]): { items: CheckedItem[]; changed: CheckedItem[] } {
  const byIndex = new Map(grades.map((g) => [g.index, g]));
  const changed: CheckedItem[] = [];
  const items = state.items.map((it) => {
    const g = byIndex.get(it.index);
    if (!g || !it.pending_cloud) return it;
    const merged: CheckedItem = { ...it, verdict: g.verdict, judged_by: 'cloud', judgment_basis: g.judgment_basis, correct_answer: g.correct_answer ?? it.correct_answer, pending_cloud: false };
    changed.push(merged);
    return merged;
  });
  return { items, changed };
}

export function parseCloudGrades(result: Record<string, unknown>): CloudGrade[] {
  const list = Array.isArray(result.items) ? result.items : [];
  const grades: CloudGrade[] = [];
  for (const raw of list) {
    if (typeof raw !== 'object' || raw === null) continue;
    const r = raw as Record<string, unknown>;
    if (typeof r.index !== 'number' || !['correct', 'incorrect', 'uncertain'].includes(r.verdict as string)) continue;
    grades.push({
      index: r.index,
      verdict: r.verdict as Verdict,
      judgment_basis: typeof r.judgment_basis === 'string' ? r.judgment_basis.slice(0, 300) : undefined,
      correct_answer: typeof r.correct_answer === 'string' ? r.correct_answer.slice(0, 100) : undefined,
    });
  }
  return grades;
}

/**
 * The homework scene, phases idle → waiting_page → checked.
 * Asked to check: wait a moment and look (capture_page). A photo comes back as an image event
 * with the runtime's page check as context: a failed quality gate gets its specific hint and
 * another look, up to MAX_ATTEMPTS; a read page gets a short spoken summary, a card with a mark
 * on every problem, a history record, and the problems the lamp could not judge go to the
 * cloud. checked: the child can ask about any problem, or to check another page. The cloud's
 * verdicts arrive as a result event and are merged; uncertain items are never counted wrong.
 */
export const homeworkScene: Scene<HomeworkState> = {
  name: 'homework',
  initial: () => ({ phase: 'idle', attempts: 0, check_id: null, items: [], checked_at: null }),
  step(state: HomeworkState, event: SceneEvent): StepResult<HomeworkState> {
    switch (event.type) {
      case 'enter':
        return look({ ...state, attempts: 0 }, '好的，把作业本平放在灯下面，我来看看。', FIRST_LOOK_MS);
      case 'image': {
        const check = event.context as PageCheck | undefined;
        if (!check) return out({ ...state, phase: 'idle' }, '我现在看不了作业，等一会儿再试试吧。');
        if (check.ok) return graded(state, check, event.now);
        if (check.issue === 'unavailable') return out({ ...state, phase: 'idle', attempts: 0 }, check.hint);
        return retry(state, check.hint);
      }
      case 'result': {
        if (event.method !== 'grade_homework' || event.request_id !== state.check_id) return { state, reply: { text: '' }, effects: [] };
        const { items, changed } = merge(state, parseCloudGrades(event.result));
        if (changed.length === 0) return { state, reply: { text: '' }, effects: [] };
        const text = summarise(items, { afterCloud: true });
        const next = { ...state, items };
        return out(next, text, [{ type: 'learning_record', kind: 'homework_check', data: { check_id: state.check_id, items, summary: text } }], homeworkCard(items, text));
      }
      case 'utterance': {
        const text = event.text;
        if (state.phase === 'waiting_page') {
          if (READY.test(text) || AGAIN.test(text)) return look(state, '好，我看看。', 0);
          return look(state, '把作业本放在灯下面，放好了说“好了”。', RETRY_LOOK_MS);
        }
        if (AGAIN.test(text) || (state.phase !== 'checked' && READY.test(text))) return look({ ...state, attempts: 0 }, '好的，把这一页放好，我再看看。', FIRST_LOOK_MS);
        if (state.phase !== 'checked') return look({ ...state, attempts: 0 }, '把作业本平放在灯下面，我来看看。', FIRST_LOOK_MS);
        const n = ordinalIn(text);
        if (n !== undefined) {
          const item = state.items.find((it) => it.index === n);
          return out(state, item ? explainItem(item) : `这一页只有 ${state.items.length} 道题哦。`);
        }
        if (WHICH_WRONG.test(text)) return out(state, summarise(state.items));
        return out(state, '你可以问我“第三题为什么错了”，或者说“再检查一页”。');
      }
    }
  },
};
