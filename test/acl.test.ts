import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from './helpers/broker.js';

let broker: Broker;

beforeAll(async () => {
  broker = await startBroker({ users: { 'lamp-a': 'secret-a-0123456789', 'lamp-b': 'secret-b-0123456789', cloud: 'secret-cloud-0123456789' } });
});
afterAll(async () => broker?.stop());

const connect = (username: string, password: string) => mqtt.connectAsync(broker.url, { protocolVersion: 5, clientId: `${username}-${Math.random()}`, username, password, reconnectPeriod: 0 });

/** Collects what a client receives for a while. */
function received(client: mqtt.MqttClient): string[] {
  const got: string[] = [];
  client.on('message', (topic, payload) => got.push(`${topic} ${payload.toString()}`));
  return got;
}

describe('broker ACL (sync/mosquitto/acl)', () => {
  it('a device cannot read or write another device’s topics, only its own; the cloud reads all', async () => {
    const a = await connect('lamp-a', 'secret-a-0123456789');
    const b = await connect('lamp-b', 'secret-b-0123456789');
    const cloud = await connect('cloud', 'secret-cloud-0123456789');
    const gotA = received(a);
    const gotB = received(b);
    const gotCloud = received(cloud);

    const subOwn = await a.subscribeAsync('lamp/v1/lamp-a/#', { qos: 1 });
    // mosquitto may grant the subscription itself; the ACL is enforced on every delivery.
    await b.subscribeAsync('lamp/v1/lamp-a/#', { qos: 1 });
    await cloud.subscribeAsync('lamp/v1/#', { qos: 1 });
    expect(subOwn[0]?.qos).toBe(1);

    await b.publishAsync('lamp/v1/lamp-a/ack', '{"acked_seq":99}', { qos: 1 }).catch(() => undefined); // forged ack from B
    await b.publishAsync('lamp/v1/lamp-b/up/event', 'from b', { qos: 1 });
    await a.publishAsync('lamp/v1/lamp-a/up/event', 'from a', { qos: 1 });
    await cloud.publishAsync('lamp/v1/lamp-a/ack', '{"acked_seq":1}', { qos: 1 });
    await new Promise((r) => setTimeout(r, 500));

    expect(gotA).toContain('lamp/v1/lamp-a/up/event from a');
    expect(gotA).toContain('lamp/v1/lamp-a/ack {"acked_seq":1}');
    expect(gotA).not.toContain('lamp/v1/lamp-a/ack {"acked_seq":99}');
    expect(gotB).toEqual([]);
    expect(gotCloud).toContain('lamp/v1/lamp-b/up/event from b');
    expect(gotCloud).not.toContain('lamp/v1/lamp-a/ack {"acked_seq":99}');
    await Promise.all([a.endAsync(), b.endAsync(), cloud.endAsync()]);
  });

  it('a wrong password is refused', async () => {
    await expect(connect('lamp-a', 'wrong')).rejects.toThrow();
  });
});
