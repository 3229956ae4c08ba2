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

  it('a turn waits for another process that holds the write lock, instead of failing', async () => {
    app = await startTestApp();
    const { spawn } = await import('node:child_process');
    const { databasePath } = await import('../../sync/db.js');
    // Another process (like `lamp outbox-load`) takes the write lock, holds it 400 ms, commits.
    const script = `
      const Database = require('better-sqlite3');
      const db = new Database(process.argv[1]);
      db.exec('BEGIN IMMEDIATE');
      db.prepare("INSERT INTO outbox (id, stream, schema, ts, data_json) VALUES ('other', 'event', 1, 't', '{}')").run();
      console.log('locked');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
      db.exec('COMMIT');
    `;
    const other = spawn(process.execPath, ['-e', script, databasePath(app.config.dataDir)], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => other.stdout.on('data', (d: Buffer) => String(d).includes('locked') && resolve()));
    // the session is read first, then written: with a deferred transaction this would fail
    const env = await app.pipeline().handle({ type: 'utterance', text: '你好', source: 'test' });
    expect(env.success).toBe(true);
    await new Promise((r) => other.on('exit', r));
    expect((app.db().prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n).toBe(2);
  });

  it('runs concurrent turns one at a time, in order', async () => {
    app = await startTestApp();
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => app!.pipeline().handle({ type: 'utterance', text: `第${i}句`, source: 'test' })));
    const seqs = app.db().prepare("SELECT json_extract(data_json, '$.trace_id') AS t FROM outbox ORDER BY seq").all() as { t: string }[];
    expect(seqs.map((r) => r.t)).toEqual(results.map((r) => r.trace_id));
    expect(new SessionStore(app.db()).load('default', new Date()).session.scene_states.chat).toMatchObject({ turns: 5 });
  });
});
