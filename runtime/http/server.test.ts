import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SimCamera } from '../../drivers/camera/sim.js';
import { startTestApp } from '../../test/helpers/app.js';

let app: Awaited<ReturnType<typeof startTestApp>> | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const PNG_1x1 = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000'
  + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

function wsUrl(token?: string): string {
  const base = app!.url.replace('http', 'ws') + '/ws';
  return token === undefined ? base : `${base}?token=${encodeURIComponent(token)}`;
}

/** Opens a client and collects its messages; resolves once the hello arrived. */
async function client(token = app!.token): Promise<{ ws: WebSocket; messages: Record<string, unknown>[]; next: (type: string) => Promise<Record<string, unknown>> }> {
  const ws = new WebSocket(wsUrl(token));
  const messages: Record<string, unknown>[] = [];
  const waiters: { type: string; resolve: (m: Record<string, unknown>) => void }[] = [];
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as Record<string, unknown>;
    messages.push(msg);
    for (const w of waiters.filter((w) => w.type === msg.type)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(msg);
    }
  });
  const next = (type: string): Promise<Record<string, unknown>> => new Promise((resolve) => waiters.push({ type, resolve }));
  const hello = next('hello');
  await hello;
  return { ws, messages, next };
}

function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.on('close', (code) => resolve(code)));
}

function unexpectedStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => reject(new Error('connection was accepted')));
    ws.on('error', () => undefined);
  });
}

describe('http server', () => {
  it('/healthz reports every component', async () => {
    app = await startTestApp();
    const res = await fetch(`${app.url}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; components: Record<string, { state: string }> };
    expect(body.status).toBe('ok');
    expect(Object.keys(body.components).sort()).toEqual(['driver:button', 'driver:camera', 'driver:microphone', 'driver:projector', 'driver:servo', 'driver:speaker', 'homework', 'http', 'pipeline', 'storage']);
    expect(Object.values(body.components).every((c) => c.state === 'running')).toBe(true);
  });

  it('serves the simulator page with the token, and only on loopback by default', async () => {
    app = await startTestApp();
    expect(app.http.address.host).toBe('127.0.0.1');
    const html = await (await fetch(`${app.url}/`)).text();
    expect(html).toContain('Lamp simulator');
    expect(html).toContain(app.token);
  });

  it('does not give the page (and its token) to a request for another host name', async () => {
    app = await startTestApp();
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve) => {
      request({ host: '127.0.0.1', port: app!.http.address.port, path: '/', headers: { host: 'evil.example:8080' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).end();
    });
    expect(status).toBe(403);
  });

  it('a malformed upgrade request gets 400 and the server stays up', async () => {
    app = await startTestApp();
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve) => {
      const s = connect(app!.http.address.port, '127.0.0.1', () => {
        s.write('GET //[ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
      });
      let got = '';
      s.on('data', (d) => (got += String(d)));
      s.on('close', () => resolve(got));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it('refuses WebSocket clients without the right token', async () => {
    app = await startTestApp();
    expect(await unexpectedStatus(wsUrl())).toBe(401);
    expect(await unexpectedStatus(wsUrl('wrong-token-wrong-token'))).toBe(401);
  });

  it('carries a turn over the WebSocket and broadcasts it to other clients', async () => {
    app = await startTestApp();
    const a = await client();
    const b = await client();
    const bGets = b.next('response');
    const reply = a.next('response');
    a.ws.send(JSON.stringify({ v: 1, type: 'utterance', id: 'q1', text: '你好' }));
    const msg = await reply;
    expect(msg.id).toBe('q1');
    expect(msg.envelope).toMatchObject({ success: true, scene: 'chat' });
    expect(((await bGets).envelope as { trace_id: string }).trace_id).toBe((msg.envelope as { trace_id: string }).trace_id);
    a.ws.close();
    b.ws.close();
  });

  it('carries a conversation chat → recite (with the material) → exit → chat, with state events', async () => {
    app = await startTestApp();
    const c = await client();
    const say = async (text: string): Promise<{ scene: string; phase: string; content: { text: string; card: { title?: string } | null } }> => {
      const reply = c.next('response');
      const state = c.next('state');
      c.ws.send(JSON.stringify({ v: 1, type: 'utterance', id: text, text }));
      const env = (await reply).envelope as { scene: string; phase: string; content: { text: string; card: { title?: string } | null } };
      expect(await state).toMatchObject({ scene: env.scene, phase: env.phase });
      return env;
    };
    expect(await say('你好')).toMatchObject({ scene: 'chat', phase: 'idle' });
    const start = await say('我要背床前明月光那首');
    expect(start).toMatchObject({ scene: 'recite', phase: 'listening' });
    expect(start.content.card?.title).toBe('《静夜思》');
    const retry = await say('床前明月光疑是地上霜举头望明月');
    expect(retry).toMatchObject({ scene: 'recite', phase: 'listening' });
    expect(retry.content.text).toContain('再试一次');
    const exit = await say('我不想背了');
    expect(exit).toMatchObject({ scene: 'chat', phase: 'idle' });
    expect(exit.content.text).toContain('背诵先停一下');
    expect(await say('你叫什么名字')).toMatchObject({ scene: 'chat', phase: 'idle' });
    const { SessionStore } = await import('../turn/session.js');
    const session = new SessionStore(app.db()).load('default', new Date()).session;
    expect(session.active_scene).toBe('chat');
    expect(session.scene_states.recite).toMatchObject({ phase: 'listening', material_id: 'jing-ye-si', attempts: 1 });
    expect(app.db().prepare('SELECT accuracy, need_retry FROM recitation_history').all()).toEqual([{ accuracy: 75, need_retry: 1 }]);
    c.ws.close();
  });

  it('an image message looks under the camera; without a camera it is an error', async () => {
    app = await startTestApp();
    const c = await client();
    (app.drivers.camera as SimCamera).show(PNG_1x1);
    const reply = c.next('response');
    c.ws.send(JSON.stringify({ v: 1, type: 'image', id: 'img', ref: 'camera' }));
    expect((await reply).id).toBe('img');
    c.ws.close();
    await app.stop();
    app = await startTestApp({ LAMP_DRIVERS_CAMERA: 'none' });
    const d = await client();
    const err = d.next('error');
    d.ws.send(JSON.stringify({ v: 1, type: 'image', ref: 'camera' }));
    expect((await err).code).toBe('LAMP-2001');
    d.ws.close();
  });

  it.each([
    ['not json', 'not JSON'],
    [JSON.stringify({ v: 2, type: 'utterance', text: 'x' }), 'v:'],
    [JSON.stringify({ v: 1, type: 'shout', text: 'x' }), 'type'],
    [JSON.stringify({ v: 1, type: 'utterance', text: 'x', extra: true }), 'extra'],
  ])('rejects a bad message %# with an error event and keeps the connection', async (raw, mentions) => {
    app = await startTestApp();
    const c = await client();
    const err = c.next('error');
    c.ws.send(raw);
    const msg = await err;
    expect(msg.code).toBe('LAMP-6103');
    expect(String(msg.message)).toContain(mentions);
    const pong = c.next('pong');
    c.ws.send(JSON.stringify({ v: 1, type: 'ping', id: 'p' }));
    expect((await pong).id).toBe('p');
    c.ws.close();
  });

  it('closes a connection that sends a 10 MB frame (1009) and stays up for others', async () => {
    app = await startTestApp();
    const c = await client();
    const closed = closeCode(c.ws);
    c.ws.send(JSON.stringify({ v: 1, type: 'utterance', text: 'a'.repeat(10 * 1024 * 1024) }));
    expect(await closed).toBe(1009);
    const d = await client();
    const pong = d.next('pong');
    d.ws.send(JSON.stringify({ v: 1, type: 'ping' }));
    await pong;
    d.ws.close();
  });

  it('one client cannot flood the turn queue: past 4 turns in flight it is told to wait', async () => {
    app = await startTestApp();
    const c = await client();
    const errors: Record<string, unknown>[] = [];
    c.ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as Record<string, unknown>;
      if (m.type === 'error') errors.push(m);
    });
    for (let i = 0; i < 10; i++) c.ws.send(JSON.stringify({ v: 1, type: 'utterance', id: `f${i}`, text: '你好' }));
    await expect.poll(() => c.messages.filter((m) => m.type === 'response' && typeof m.id === 'string').length + errors.length, { timeout: 10_000 }).toBe(10);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.code === 'LAMP-4003')).toBe(true);
    c.ws.close();
  });

  it('bounds the number of clients', async () => {
    app = await startTestApp({ LAMP_HTTP_MAX_CLIENTS: '2' });
    const a = await client();
    const b = await client();
    expect(await unexpectedStatus(wsUrl(app.token))).toBe(503);
    a.ws.close();
    b.ws.close();
  });

  it('camera upload: authenticated, images only, bounded size', async () => {
    app = await startTestApp({ LAMP_HTTP_MAX_UPLOAD_BYTES: '4096' });
    const post = (body: Buffer, token?: string): Promise<Response> =>
      fetch(`${app!.url}/api/camera`, { method: 'POST', body, headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect((await post(PNG_1x1)).status).toBe(401);
    const notImage = await post(Buffer.from('hello'), app.token);
    expect(notImage.status).toBe(415);
    expect(((await notImage.json()) as { error: { code: string } }).error.code).toBe('LAMP-2004');
    expect((await post(Buffer.alloc(5000, 1), app.token)).status).toBe(413);
    const ok = await post(PNG_1x1, app.token);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { success: boolean }).success).toBe(true);
    expect((app.drivers.camera as SimCamera).health().hasImage).toBe(true);
  });
});
