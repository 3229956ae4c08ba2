import { describe, expect, it } from 'vitest';
import type { SceneEvent } from '../types.js';
import { explainItem, ordinalIn, parseChineseNumber, summarise } from './replies.js';
import { type HomeworkState, MAX_ATTEMPTS, homeworkScene } from './scene.js';
import type { CheckedItem, PageCheck } from './types.js';

const now = '2026-11-22T10:00:00.000Z';
const item = (index: number, verdict: CheckedItem['verdict'], extra: Partial<CheckedItem> = {}): CheckedItem => ({
  index,
  question: `${index}+1=`,
  student_answer: String(index + 1),
  correct_answer: String(index + 1),
  verdict,
  confidence: 0.95,
  bbox: [10, 20 * index, 100, 18],
  kind: 'expression',
  judged_by: 'lamp',
  ...extra,
});
const image = (context: PageCheck | undefined): SceneEvent => ({ type: 'image', source: 'test', now, context });
const utter = (text: string): SceneEvent => ({ type: 'utterance', text, intent: 'continue_current', confidence: 'HIGH', slots: {}, now, guard: { reason: 'continue' } });
const page = (items: CheckedItem[]): PageCheck => ({ ok: true, check_id: 'c1', items, timings_ms: {} });
const checked = (items: CheckedItem[]): HomeworkState => homeworkScene.step(homeworkScene.initial(), image(page(items))).state;

describe('homework scene', () => {
  it('entering asks for the page and looks after a moment', () => {
    const r = homeworkScene.step(homeworkScene.initial(), { type: 'enter', slots: {}, now, resumed: false, from: 'chat' });
    expect(r.state.phase).toBe('waiting_page');
    expect(r.effects).toContainEqual({ type: 'capture_page', delayMs: expect.any(Number) });
  });

  it('a failed quality gate speaks its hint and looks again, then gives up kindly', () => {
    let state = homeworkScene.initial();
    for (let i = 1; i < MAX_ATTEMPTS; i++) {
      const r = homeworkScene.step(state, image({ ok: false, issue: 'too_dark', hint: '太暗了，把灯调亮一点' }));
      expect(r.reply.text).toBe('太暗了，把灯调亮一点');
      expect(r.effects.some((e) => e.type === 'capture_page')).toBe(true);
      state = r.state;
    }
    const last = homeworkScene.step(state, image({ ok: false, issue: 'blurry', hint: '有点模糊，拿稳别动哦' }));
    expect(last.state.phase).toBe('idle');
    expect(last.state.attempts).toBe(0);
    expect(last.effects.some((e) => e.type === 'capture_page')).toBe(false);
    expect(last.reply.text).toContain('有点模糊');
  });

  it('a read page gets a summary, a mark per problem, a record, and the unsure ones go to the cloud', () => {
    const items = [item(1, 'correct'), item(2, 'correct'), item(3, 'incorrect', { student_answer: '5' }), item(4, 'uncertain', { kind: 'not_arithmetic', reason: 'not_arithmetic' }), item(5, 'correct')];
    const r = homeworkScene.step(homeworkScene.initial(), image(page(items)));
    expect(r.state.phase).toBe('checked');
    expect(r.reply.text).toBe('5 道题对了 3 道，第 3 题再看看，第 4 题我请老师帮忙看看。');
    const card = r.effects.find((e) => e.type === 'show_card');
    expect(card && card.type === 'show_card' && (card.card.marks as { mark: string }[]).map((m) => m.mark)).toEqual(['✓', '✓', '✗', '?', '✓']);
    const call = r.effects.find((e) => e.type === 'cloud_call');
    expect(call).toMatchObject({ method: 'grade_homework', request_id: 'c1', params: { items: [{ index: 4, kind: 'not_arithmetic' }] } });
    expect(r.effects.some((e) => e.type === 'learning_record' && e.kind === 'homework_check')).toBe(true);
  });

  it('an all-correct page is praised, asks nothing of the cloud and nods', () => {
    const r = homeworkScene.step(homeworkScene.initial(), image(page([item(1, 'correct'), item(2, 'correct')])));
    expect(r.reply.text).toBe('2 道题全对了，真棒！');
    expect(r.effects.some((e) => e.type === 'cloud_call')).toBe(false);
    expect(r.effects).toContainEqual({ type: 'servo_gesture', gesture: 'nod' });
  });

  it('a page with no problems found asks for the right page', () => {
    const r = homeworkScene.step(homeworkScene.initial(), image(page([])));
    expect(r.state.phase).toBe('waiting_page');
    expect(r.reply.text).toContain('没找到题目');
  });

  it('OCR unavailable is said honestly and does not retry', () => {
    const r = homeworkScene.step(homeworkScene.initial(), image({ ok: false, issue: 'unavailable', hint: '我现在看不了作业本' }));
    expect(r.state.phase).toBe('idle');
    expect(r.effects.some((e) => e.type === 'capture_page')).toBe(false);
  });

  it('the cloud verdicts merge into the page; uncertain stays uncounted; other checks are ignored', () => {
    const state = checked([item(1, 'correct'), item(2, 'uncertain', { kind: 'not_arithmetic' }), item(3, 'uncertain', { kind: 'not_arithmetic' })]);
    const stale = homeworkScene.step(state, { type: 'result', method: 'grade_homework', request_id: 'other', result: { items: [{ index: 2, verdict: 'incorrect' }] }, now });
    expect(stale.state).toBe(state);
    expect(stale.effects).toEqual([]);
    const r = homeworkScene.step(state, {
      type: 'result',
      method: 'grade_homework',
      request_id: 'c1',
      result: { items: [{ index: 2, verdict: 'incorrect', judgment_basis: '“请”字少了一点' }, { index: 3, verdict: 'uncertain' }, { index: 9, verdict: 'correct' }, 'junk'] },
      now,
    });
    const merged = (r.state as HomeworkState).items;
    expect(merged.map((it) => [it.verdict, it.judged_by, it.pending_cloud])).toEqual([
      ['correct', 'lamp', undefined],
      ['incorrect', 'cloud', false],
      ['uncertain', 'cloud', false],
    ]);
    expect(r.reply.text).toBe('老师也看完啦。3 道题对了 1 道，第 2 题再看看，第 3 题我没看清楚。');
    expect(r.effects.some((e) => e.type === 'learning_record')).toBe(true);
  });

  it('answers questions about one problem', () => {
    const state = checked([item(1, 'correct'), item(2, 'correct'), item(3, 'incorrect', { question: '7×8=', student_answer: '54', correct_answer: '56' })]);
    expect(homeworkScene.step(state, utter('第三题为什么错了')).reply.text).toBe('第 3 题是 7×8=，你写的是 54，正确答案是 56。再算一遍试试？');
    expect(homeworkScene.step(state, utter('第1题对吗')).reply.text).toContain('是对的');
    expect(homeworkScene.step(state, utter('第十题呢')).reply.text).toBe('这一页只有 3 道题哦。');
    expect(homeworkScene.step(state, utter('哪些题错了')).reply.text).toContain('第 3 题再看看');
    const again = homeworkScene.step(state, utter('再检查一页'));
    expect(again.state.phase).toBe('waiting_page');
    expect(again.effects.some((e) => e.type === 'capture_page')).toBe(true);
  });

  it('"好了" while waiting looks at once', () => {
    const waiting = homeworkScene.step(homeworkScene.initial(), { type: 'enter', slots: {}, now, resumed: false, from: 'chat' }).state;
    expect(homeworkScene.step(waiting, utter('好了')).effects).toContainEqual({ type: 'capture_page', delayMs: 0 });
  });
});

describe('homework replies', () => {
  it.each([
    ['三', 3],
    ['十', 10],
    ['十二', 12],
    ['二十', 20],
    ['二十七', 27],
    ['两', 2],
    ['15', 15],
    ['三三', undefined],
    ['', undefined],
  ])('parseChineseNumber(%s) = %s', (s, n) => expect(parseChineseNumber(s)).toBe(n));

  it.each([
    ['第三题为什么错了', 3],
    ['第 12 题', 12],
    ['第二十道题怎么做', 20],
    ['这题为什么错', undefined],
  ])('ordinalIn(%s) = %s', (s, n) => expect(ordinalIn(s)).toBe(n));

  it('lists at most three problems by number, more as a count', () => {
    const many = [1, 2, 3, 4, 5].map((i) => item(i, 'incorrect'));
    expect(summarise(many)).toBe('5 道题对了 0 道，有 5 道题再看看，从第 1 题开始。');
    expect(summarise([item(1, 'incorrect'), item(2, 'incorrect'), item(3, 'correct')])).toBe('3 道题对了 1 道，第 1 题和第 2 题再看看。');
  });

  it('a blank answer is invited, not scolded', () => {
    expect(explainItem(item(4, 'incorrect', { reason: 'blank', student_answer: '' }))).toBe('第 4 题还没有写答案哦，4+1=，算一算再写上吧。');
  });
});
