import { afterEach, describe, expect, it } from 'vitest';
import type { SimServo } from '../drivers/servo/sim.js';
import { startTestApp } from './helpers/app.js';

let app: Awaited<ReturnType<typeof startTestApp>> | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const DAY = 86_400_000;

describe('a recitation from request to tomorrow’s review', () => {
  it('names a poem, recites with mistakes, gets feedback and a tip the second time, retries, passes; everything is stored and queued', async () => {
    app = await startTestApp();
    const say = (text: string) => app!.pipeline().handle({ type: 'utterance', text, source: 'test' });

    const start = await say('我想背春晓');
    expect(start).toMatchObject({ scene: 'recite', phase: 'listening' });
    expect(start.content.card).toMatchObject({ title: '《春晓》' });

    // 闻 → 温: mispronounced; first time: just the right text, no tip
    const first = await say('春眠不觉晓处处温啼鸟夜来风雨声');
    expect(first.phase).toBe('listening');
    expect(first.content.text).toContain('“闻”的读音再注意一下');
    expect(first.content.text).not.toContain('读 wén');
    expect(first.content.text).toContain('再试一次');
    // 闻 is line 0, column 8 of "春眠不觉晓，处处闻啼鸟。"
    expect(first.content.card).toMatchObject({ marks: expect.arrayContaining([expect.objectContaining({ type: 'mispronounced', line: 0, col: 8, len: 1 })]) });

    // the same slip again: now a memory tip, built locally from pinyin
    const second = await say('春眠不觉晓处处温啼鸟夜来风雨声花落知多少');
    expect(second.content.text).toContain('读 wén');
    expect(second.phase).toBe('done'); // 95 %: passed

    const db = app.db();
    const history = db.prepare('SELECT accuracy, need_retry, is_review FROM recitation_history ORDER BY id').all();
    expect(history).toEqual([
      { accuracy: 70, need_retry: 1, is_review: 0 },
      { accuracy: 95, need_retry: 0, is_review: 0 },
    ]);
    const patterns = db.prepare('SELECT error_type, content, occurrence_count, memory_tip IS NOT NULL AS has_tip FROM recitation_error_pattern ORDER BY id').all();
    expect(patterns).toEqual(expect.arrayContaining([{ error_type: 'mispronounced', content: '闻', occurrence_count: 2, has_tip: 1 }]));
    const schedule = db.prepare('SELECT material_id, step, due_at FROM recitation_review_schedule').get() as { material_id: string; step: number; due_at: string };
    expect(schedule).toMatchObject({ material_id: 'chun-xiao', step: 0 });
    expect(Math.abs(Date.parse(schedule.due_at) - (Date.now() + DAY))).toBeLessThan(60_000);
    const streams = (db.prepare('SELECT stream FROM outbox ORDER BY seq').all() as { stream: string }[]).map((r) => r.stream);
    expect(streams.filter((s) => s === 'recitation_history')).toHaveLength(2);
    expect(streams).toContain('error_pattern');
    expect(streams).toContain('review_schedule');
    expect((app.drivers.servo as SimServo).history.length).toBeGreaterThan(0);
  });

  it('reciting an English text is scored, even where its words would mean something else outside the scene', async () => {
    app = await startTestApp();
    const say = (text: string) => app!.pipeline().handle({ type: 'utterance', text, source: 'test' });
    // fairly sure, not quite: the lamp asks first, and "yes" takes the child there with the material
    expect(await say('I want to recite hello how are you')).toMatchObject({ scene: 'chat', phase: 'handoff_wait' });
    expect(await say('yes')).toMatchObject({ scene: 'recite', phase: 'listening', content: { card: { title: '《Hello! How are you?》' } } });
    // a first line alone: "What's your name?" would be a chat question elsewhere
    expect(await say("What's your name")).toMatchObject({ scene: 'recite', phase: 'listening' });
    const done = await say("Hello how are you I'm fine thank you and you I'm fine too what's your name my name is Sarah nice to meet you nice to meet you too goodbye bye");
    expect(done).toMatchObject({ scene: 'recite', phase: 'done' });
    expect(app.db().prepare('SELECT accuracy FROM recitation_history ORDER BY id DESC').get()).toEqual({ accuracy: 100 });
  });

  it('a hint request and an unrelated remark are not scored as attempts', async () => {
    app = await startTestApp();
    const say = (text: string) => app!.pipeline().handle({ type: 'utterance', text, source: 'test' });
    await say('我要背静夜思');
    expect((await say('我忘了第一句是什么')).content.text).toContain('床前明月光');
    expect(app.db().prepare('SELECT count(*) AS n FROM recitation_history').get()).toEqual({ n: 0 });
  });
});
