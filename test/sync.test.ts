import mqtt from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../runtime/errors.js';
import { CloudSimulator } from '../sync/cloud-sim.js';
import { SqliteOutbox } from '../sync/outbox.js';
import { startTestApp } from './helpers/app.js';
import type { Broker } from './helpers/broker.js';
import { startBrokerAndCloud } from './helpers/cloud.js';

let broker: Broker;
let sim: CloudSimulator;
let app: Awaited<ReturnType<typeof startTestApp>> | undefined;

let stopAll: () => Promise<void>;
beforeAll(async () => {
  ({ broker, sim, stop: stopAll } = await startBrokerAndCloud());
});
afterAll(async () => {
  await sim?.stop(); // the tests may have replaced it
  await stopAll?.();
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
  sim.acking = true;
});

let deviceCounter = 0;
async function lamp(): Promise<NonNullable<typeof app>> {
  app = await startTestApp({ LAMP_MQTT_URL: broker.url, LAMP_DEVICE_ID: `lamp-test-${process.pid}-${++deviceCounter}` });
  return app;
}
const deviceOf = (a: NonNullable<typeof app>): string => a.config.deviceId;

function write(a: NonNullable<typeof app>, n: number): void {
  const outbox = new SqliteOutbox(a.db());
  const tx = a.db().transaction((i: number) => outbox.append('event', { i }));
  for (let i = 1; i <= n; i++) tx(i);
  a.sync?.pump();
}

async function rawClient() {
  return mqtt.connectAsync(broker.url, { protocolVersion: 5, clientId: `raw-${Date.now()}-${Math.random()}` });
}

describe('sync over a real mosquitto', () => {
  it('sends records in order, the cloud acknowledges them, the outbox is purged; presence is retained', async () => {
    const a = await lamp();
    write(a, 750);
    await expect.poll(() => sim.device(deviceOf(a)).contiguous, { timeout: 15_000 }).toBe(750);
    const seqs = [...sim.device(deviceOf(a)).bySeq.keys()].sort((x, y) => x - y);
    expect(seqs).toEqual(Array.from({ length: 750 }, (_, i) => i + 1));
    await expect.poll(() => new SqliteOutbox(a.db()).stats(), { timeout: 10_000 }).toMatchObject({ pending: 0, acked_seq: 750 });
    expect(sim.statuses.get(deviceOf(a))).toMatchObject({ online: true });
  });

  it('a recitation done offline reaches the cloud as soon as a broker is configured', async () => {
    const { tempDir } = await import('./helpers/app.js');
    const dataDir = tempDir();
    const deviceId = `lamp-offline-${process.pid}`;
    const offline = await startTestApp({ LAMP_DATA_DIR: dataDir, LAMP_DEVICE_ID: deviceId });
    expect(offline.sync).toBeUndefined();
    await offline.pipeline().handle({ type: 'utterance', text: '我要背静夜思', source: 'test' });
    await offline.pipeline().handle({ type: 'utterance', text: '床前明月光疑是地上霜举头望明月低头思故乡', source: 'test' });
    const queued = new SqliteOutbox(offline.db()).stats().pending;
    expect(queued).toBeGreaterThan(3);
    await offline.stop();
    app = await startTestApp({ LAMP_DATA_DIR: dataDir, LAMP_DEVICE_ID: deviceId, LAMP_MQTT_URL: broker.url });
    await expect.poll(() => sim.device(deviceId).contiguous, { timeout: 10_000 }).toBe(queued);
    expect([...sim.device(deviceId).byId.values()].map((r) => r.stream)).toEqual(expect.arrayContaining(['recitation_history', 'review_schedule', 'report', 'event']));
  });

  it('a tip worded offline is replaced once by the cloud’s, then reused', async () => {
    const { tempDir } = await import('./helpers/app.js');
    const dataDir = tempDir();
    const deviceId = `lamp-tips-${process.pid}`;
    const offline = await startTestApp({ LAMP_DATA_DIR: dataDir, LAMP_DEVICE_ID: deviceId });
    const say = (a: NonNullable<typeof app>, text: string) => a.pipeline().handle({ type: 'utterance', text, source: 'test' });
    await say(offline, '我想背春晓');
    await say(offline, '春眠不觉晓处处温啼鸟夜来风雨声');
    await say(offline, '春眠不觉晓处处温啼鸟夜来风雨声'); // second time: a local tip is stored
    expect(offline.db().prepare("SELECT tip_source FROM recitation_error_pattern WHERE content = '闻'").get()).toEqual({ tip_source: 'local' });
    await offline.stop();

    app = await startTestApp({ LAMP_DATA_DIR: dataDir, LAMP_DEVICE_ID: deviceId, LAMP_MQTT_URL: broker.url });
    await expect.poll(() => app!.sync?.health().connected, { timeout: 10_000 }).toBe(true);
    await app.upgrades!.round();
    const row = app.db().prepare("SELECT memory_tip, tip_source FROM recitation_error_pattern WHERE content = '闻'").get() as { memory_tip: string; tip_source: string };
    expect(row).toMatchObject({ tip_source: 'cloud' });
    expect(row.memory_tip).toContain('闻');
    const third = await say(app, '春眠不觉晓处处温啼鸟夜来风雨声');
    expect(third.content.text).toContain(row.memory_tip);
    await app.upgrades!.round(); // nothing left to upgrade; the cloud tip stays
    expect(app.db().prepare("SELECT memory_tip FROM recitation_error_pattern WHERE content = '闻'").get()).toEqual({ memory_tip: row.memory_tip });
  });

  it('a turn’s records reach the cloud', async () => {
    const a = await lamp();
    await a.pipeline().handle({ type: 'utterance', text: '我要背静夜思', source: 'test' });
    await a.pipeline().handle({ type: 'utterance', text: '床前明月光疑是地上霜举头望明月低头思故乡', source: 'test' });
    await expect.poll(() => [...sim.device(deviceOf(a)).byId.values()].map((r) => r.stream), { timeout: 10_000 }).toContain('recitation_history');
  });

  it('without acks, records are sent again after a broker restart; the cloud de-duplicates by id', async () => {
    const a = await lamp();
    sim.acking = false;
    write(a, 300);
    await expect.poll(() => sim.device(deviceOf(a)).contiguous, { timeout: 10_000 }).toBe(300);
    expect(new SqliteOutbox(a.db()).stats().pending).toBe(300);
    await broker.restart();
    // the lamp reconnects and sends everything unacknowledged again; the cloud keeps one of each
    await expect.poll(() => sim.device(deviceOf(a)).duplicates, { timeout: 20_000 }).toBeGreaterThanOrEqual(300);
    expect(sim.device(deviceOf(a)).byId.size).toBe(300);
    sim.acking = true;
    sim.ackAll();
    await expect.poll(() => new SqliteOutbox(a.db()).stats().pending, { timeout: 10_000 }).toBe(0);
  });

  it('malformed inbound messages are rejected with a reason and change nothing', async () => {
    const a = await lamp();
    write(a, 5);
    await expect.poll(() => new SqliteOutbox(a.db()).stats().acked_seq, { timeout: 10_000 }).toBe(5);
    sim.acking = false;
    write(a, 5);
    await expect.poll(() => sim.device(deviceOf(a)).contiguous, { timeout: 10_000 }).toBe(10);
    const c = await rawClient();
    const root = `lamp/v1/${deviceOf(a)}`;
    await c.publishAsync(`${root}/ack`, 'not json', { qos: 1 });
    await c.publishAsync(`${root}/ack`, JSON.stringify({ acked_seq: 'ten' }), { qos: 1 });
    await c.publishAsync(`${root}/ack`, JSON.stringify({ acked_seq: 10, extra: 1 }), { qos: 1 });
    await c.publishAsync(`${root}/ack`, Buffer.alloc(600 * 1024, 0x20), { qos: 1 });
    await c.publishAsync(`${root}/rpc/res`, JSON.stringify({ id: 'x' }), { qos: 1 });
    await c.publishAsync(`${root}/cmd`, '{"id": "c-1", "name": "format_disk", "params": {}}', { qos: 1 });
    await c.publishAsync(`lamp/v1/some-other-lamp/ack`, JSON.stringify({ acked_seq: 10 }), { qos: 1 });
    await expect.poll(() => (a.sync?.health() as { rejected_inbound: number }).rejected_inbound, { timeout: 10_000 }).toBe(6);
    expect(new SqliteOutbox(a.db()).stats()).toMatchObject({ acked_seq: 5, pending: 5 });
    await expect.poll(() => sim.commandResults.find((r) => (r as { id: string }).id === 'c-1'), { timeout: 5000 }).toMatchObject({ ok: false, error: { code: 'bad_command' } });
    expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
    await c.endAsync();
  });

  it('commands: pushed materials become recitable, live config changes, restart-only config is refused, a repeated id is not executed twice', async () => {
    const a = await lamp();
    await expect.poll(() => a.sync?.health().connected, { timeout: 10_000 }).toBe(true);
    const id = '7c1a3c43-6a53-4d1b-9d1d-6f9d5b9a0001';
    const material = { id: 'xiao-chuan', title: '小船谣', author: '佚名', dynasty: '', grade: 1, kind: 'poem', text: '小小船儿水上漂，摇摇摆摆过小桥。' };
    sim.command(deviceOf(a), { id, name: 'push_materials', params: { materials: [material] } });
    await expect.poll(() => sim.commandResults.find((r) => (r as { id: string }).id === id), { timeout: 10_000 }).toMatchObject({ ok: true, result: { stored: 1 } });
    const env = await a.pipeline().handle({ type: 'utterance', text: '我要背小船谣', source: 'test' });
    expect(env.content.card).toMatchObject({ title: '《小船谣》' });

    const cfg = '7c1a3c43-6a53-4d1b-9d1d-6f9d5b9a0002';
    sim.command(deviceOf(a), { id: cfg, name: 'set_config', params: { path: 'session.idleResetMinutes', value: 45 } });
    await expect.poll(() => a.config.session.idleResetMinutes, { timeout: 10_000 }).toBe(45);
    const port = '7c1a3c43-6a53-4d1b-9d1d-6f9d5b9a0003';
    sim.command(deviceOf(a), { id: port, name: 'set_config', params: { path: 'http.port', value: 1 } });
    await expect.poll(() => sim.commandResults.find((r) => (r as { id: string }).id === port), { timeout: 10_000 }).toMatchObject({ ok: false });

    const before = sim.commandResults.filter((r) => (r as { id: string }).id === id).length;
    sim.command(deviceOf(a), { id, name: 'push_materials', params: { materials: [{ ...material, text: '改过的。' }] } });
    await expect.poll(() => sim.commandResults.filter((r) => (r as { id: string }).id === id).length, { timeout: 10_000 }).toBe(before + 1);
    expect(a.db().prepare('SELECT json FROM material').get()).toEqual({ json: JSON.stringify(material) });
  });

  it('chat: online, an open question gets the cloud’s answer; the scene still answers when the cloud is gone', async () => {
    const a = await lamp();
    await expect.poll(() => a.sync?.health().connected, { timeout: 10_000 }).toBe(true);
    const online = await a.pipeline().handle({ type: 'utterance', text: '为什么天是蓝色的呀', source: 'test' });
    expect(online.content.text).toContain('云端模拟');
    await broker.stop();
    await expect.poll(() => a.sync?.health().connected, { timeout: 10_000 }).toBe(false);
    const offline = await a.pipeline().handle({ type: 'utterance', text: '为什么天是蓝色的呀', source: 'test' });
    expect(offline.content.text).not.toContain('云端模拟');
    expect(offline.content.text).toContain('连上网');
    expect(offline.processing_time_ms).toBeLessThan(500);
    await broker.start();
    await sim.stop();
    sim = new CloudSimulator(broker.url);
    await sim.start();
  });

  it('cloud calls: answered within the deadline; offline callers hear "not now" at once', async () => {
    const a = await lamp();
    await expect.poll(() => a.sync?.health().connected, { timeout: 10_000 }).toBe(true);
    const r = await a.sync!.cloud!.call('memory_tip', { expected: '闻' }, 5000);
    expect(r.tip).toContain('闻');
    await broker.stop();
    await expect.poll(() => a.sync?.health().connected, { timeout: 10_000 }).toBe(false);
    const t0 = performance.now();
    const err = await a.sync!.cloud!.call('chat', { text: '你好' }, 5000).catch((e: unknown) => e);
    expect(isLampError(err, ErrorCode.SYNC_OFFLINE)).toBe(true);
    // At once, not at the 5 s deadline (a loaded CI machine can take tens of milliseconds).
    expect(performance.now() - t0).toBeLessThan(1000);
    await broker.start();
    await sim.stop();
    sim = new CloudSimulator(broker.url);
    await sim.start();
  });
});
