import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../runtime/paths.js';
import type { ResponseEnvelope } from '../runtime/turn/response.js';
import type { CloudSimulator } from '../sync/cloud-sim.js';
import { SqliteOutbox } from '../sync/outbox.js';
import { startTestApp } from './helpers/app.js';
import type { Broker } from './helpers/broker.js';
import { startBrokerAndCloud } from './helpers/cloud.js';

const fixture = (name: string): Buffer => readFileSync(path.join(projectRoot(), 'test', 'fixtures', 'homework', name));

let app: Awaited<ReturnType<typeof startTestApp>> | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function upload(image: Buffer): Promise<ResponseEnvelope> {
  if (!app) throw new Error('no app');
  const res = await fetch(`${app.url}/api/camera`, { method: 'POST', body: image, headers: { authorization: `Bearer ${app.token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as ResponseEnvelope;
}

interface Marks {
  marks: { index: number; mark: string; verdict: string }[];
}

describe('homework on the simulator: a photo in, a spoken summary and a mark on every problem out', () => {
  it('offline: arithmetic is judged at once, the rest waits in the outbox; a bad photo gets its hint', async () => {
    app = await startTestApp();
    const dark = await upload(fixture('dark-7.jpg'));
    expect(dark.scene).toBe('homework');
    expect(dark.content.text).toContain('太暗了');

    const env = await upload(fixture('easy-1.jpg'));
    expect(env.scene).toBe('homework');
    expect(env.phase).toBe('checked');
    expect(env.content.text).toMatch(/^\d+ 道题/);
    const card = env.content.card as unknown as Marks;
    const truth = JSON.parse(readFileSync(path.join(projectRoot(), 'test', 'fixtures', 'homework', 'easy-1.json'), 'utf8')) as { items: unknown[] };
    expect(card.marks.length).toBe(truth.items.length);
    expect(card.marks.every((m) => ['✓', '✗', '?'].includes(m.mark))).toBe(true);
    // The projector shows the same card.
    expect(app.drivers.projector?.current).toMatchObject({ kind: 'homework' });

    const homework = new SqliteOutbox(app.db()).after(0, 1000).filter((r) => r.stream === 'homework').map((r) => r.data as Record<string, unknown>);
    expect(homework.find((d) => d.kind === 'check')).toMatchObject({ total: truth.items.length });
    const request = homework.find((d) => d.kind === 'grade_request') as { params: { items: { image_jpeg_base64: string | null }[] } } | undefined;
    expect(request?.params.items.length).toBeGreaterThan(0); // the word problem at least
    expect(request?.params.items.every((it) => typeof it.image_jpeg_base64 === 'string' && it.image_jpeg_base64.length > 100)).toBe(true);

    const why = await app.pipeline().handle({ type: 'utterance', text: '第五题为什么错了', source: 'test' });
    expect(why.content.text).toMatch(/^第 5 题/);
  });

  describe('with the cloud', () => {
    let broker: Broker;
    let sim: CloudSimulator;
    let stopAll: () => Promise<void>;
    beforeAll(async () => {
      ({ broker, sim, stop: stopAll } = await startBrokerAndCloud());
    });
    afterAll(async () => stopAll());

    it('the cloud grades what the lamp could not, and its verdicts reach the card', async () => {
      app = await startTestApp({ LAMP_MQTT_URL: broker.url, LAMP_DEVICE_ID: `lamp-hw-${process.pid}` });
      await expect.poll(() => app?.sync?.cloud?.available, { timeout: 5000 }).toBe(true);
      const env = await upload(fixture('easy-1.jpg'));
      expect(env.phase).toBe('checked');
      await expect.poll(() => (app?.drivers.projector?.current as { summary?: string } | undefined)?.summary, { timeout: 10_000 }).toMatch(/^老师也看完啦/);
      const merged = app.drivers.projector?.current as unknown as Marks;
      expect(merged.marks.some((m) => m.verdict === 'uncertain')).toBe(false); // the simulator judged each one sent
      expect(sim.calls.get('grade_homework')).toBe(1);
    });

    it('a queued request answered later by deliver_result updates the page the child checked', async () => {
      app = await startTestApp({ LAMP_MQTT_URL: broker.url, LAMP_DEVICE_ID: `lamp-hw2-${process.pid}`, LAMP_HOMEWORK_CLOUD_DEADLINE_MS: '1000' });
      await expect.poll(() => app?.sync?.cloud?.available, { timeout: 5000 }).toBe(true);
      sim.answering = false;
      try {
        const env = await upload(fixture('easy-1.jpg'));
        const pending = (env.content.card as unknown as Marks).marks.filter((m) => m.verdict === 'uncertain').map((m) => m.index);
        expect(pending.length).toBeGreaterThan(0);
        const device = `lamp-hw2-${process.pid}`;
        // The request waits in the outbox and reaches the cloud as an upward record.
        const queued = (): { request_id: string } | undefined => [...(sim.devices.get(device)?.byId.values() ?? [])].map((r) => r.data).find((d) => d.kind === 'grade_request') as { request_id: string } | undefined;
        await expect.poll(queued, { timeout: 10_000 }).toBeDefined();
        const request = queued() as { request_id: string };
        sim.command(device, { id: crypto.randomUUID(), name: 'deliver_result', params: { kind: 'grade_homework', request_id: request.request_id, result: { items: pending.map((index) => ({ index, verdict: 'incorrect', judgment_basis: '“新”应为“心”' })) } } });
        await expect.poll(() => (app?.drivers.projector?.current as { summary?: string } | undefined)?.summary, { timeout: 10_000 }).toMatch(/^老师也看完啦/);
        const why = await app.pipeline().handle({ type: 'utterance', text: `第${pending[0]}题为什么错了`, source: 'test' });
        expect(why.content.text).toContain('老师看了');
      } finally {
        sim.answering = true;
      }
    });
  });
});
