import { afterEach, describe, expect, it } from 'vitest';
import type { SimProjector } from '../../drivers/projector/sim.js';
import { startTestApp } from '../../test/helpers/app.js';
import { SessionStore } from './session.js';

let app: Awaited<ReturnType<typeof startTestApp>> | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

describe('turn pipeline', () => {
  it('an utterance goes through session, route, scene and effects, and is saved with its upward record', async () => {
    app = await startTestApp();
    const speech: string[] = [];
    app.bus.on('test', 'speech', ({ text }) => void speech.push(text));
    const env = await app.pipeline().handle({ type: 'utterance', text: '  你好呀  ', source: 'test' });
    expect(env.success).toBe(true);
    expect(env.scene).toBe('chat');
    expect(env.trace_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(env.content.text.length).toBeGreaterThan(0);
    expect(env.need_tts).toBe(true);
    expect(speech).toEqual([env.content.text]);
    expect((app.drivers.projector as SimProjector).current).toMatchObject({ kind: 'chat', lines: [env.content.text] });

    const session = new SessionStore(app.db()).load('default', new Date()).session;
    expect(session.last_intent).toEqual({ intent: 'chat', confidence: 'HIGH' });
    expect(session.scene_states.chat).toMatchObject({ phase: 'idle', turns: 1 });
    const rows = app.db().prepare('SELECT seq, stream, data_json FROM outbox').all() as { seq: number; stream: string; data_json: string }[];
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]?.data_json ?? '{}')).toMatchObject({ kind: 'turn', trace_id: env.trace_id, scene: 'chat' });
    // the upward record does not carry what the child said
    expect(rows[0]?.data_json).not.toContain('你好');
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['字'.repeat(5001), 'too_long'],
    ['hello\u0007there', 'control_chars'],
  ])('rejects unusable input %#, kindly, and changes nothing', async (text, reason) => {
    app = await startTestApp();
    const env = await app.pipeline().handle({ type: 'utterance', text, source: 'test' });
    expect(env.success).toBe(false);
    expect(env.error).toEqual({ code: 'LAMP-4003', message: reason });
    expect(env.content.text).toMatch(/[\u4e00-\u9fff]/);
    expect((app.db().prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n).toBe(0);
    expect(app.db().prepare('SELECT count(*) AS n FROM session').get()).toEqual({ n: 0 });
  });

  it('runs concurrent turns one at a time, in order', async () => {
    app = await startTestApp();
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => app!.pipeline().handle({ type: 'utterance', text: `第${i}句`, source: 'test' })));
    const seqs = app.db().prepare("SELECT json_extract(data_json, '$.trace_id') AS t FROM outbox ORDER BY seq").all() as { t: string }[];
    expect(seqs.map((r) => r.t)).toEqual(results.map((r) => r.trace_id));
    expect(new SessionStore(app.db()).load('default', new Date()).session.scene_states.chat).toMatchObject({ turns: 5 });
  });
});
