import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudSimulator } from '../sync/cloud-sim.js';
import { tempDir } from './helpers/app.js';
import type { Broker } from './helpers/broker.js';
import { startBrokerAndCloud } from './helpers/cloud.js';
import { CLI, type LampProcess, startLampProcess } from './helpers/lamp-process.js';

const N = 3000;
const RATE = 1500;

let broker: Broker;
let sim: CloudSimulator;

let stopAll: () => Promise<void>;
beforeAll(async () => {
  ({ broker, sim, stop: stopAll } = await startBrokerAndCloud());
});
afterAll(async () => {
  await sim?.stop(); // the tests may have replaced it
  await stopAll?.();
});

let n = 0;
function setup(): { env: Record<string, string>; deviceId: string; dataDir: string } {
  const deviceId = `lamp-fault-${process.pid}-${++n}`;
  const dataDir = tempDir();
  return { deviceId, dataDir, env: { LAMP_DATA_DIR: dataDir, LAMP_DEVICE_ID: deviceId, LAMP_MQTT_URL: broker.url } };
}

/** `lamp outbox-load` as its own process, writing beside the running lamp. */
function load(env: Record<string, string>): { proc: ChildProcess; done: Promise<number | null> } {
  const proc = spawn(process.execPath, [CLI, 'outbox-load', '--count', String(N), '--rate', String(RATE)], { env: { ...process.env, ...env }, stdio: 'ignore' });
  return { proc, done: new Promise((resolve) => proc.on('exit', (code) => resolve(code))) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function allArrived(deviceId: string, dataDir: string, lamp: LampProcess): Promise<void> {
  await expect.poll(() => sim.device(deviceId).contiguous, { timeout: 30_000, interval: 200 }).toBe(N);
  const d = sim.device(deviceId);
  expect(d.byId.size).toBe(N);
  expect([...d.bySeq.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  lamp.proc.kill('SIGTERM');
  expect(await lamp.exited).toBe(0);
  const db = new BetterSqlite3(path.join(dataDir, 'lamp.db'), { readonly: true });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  db.close();
}

describe.each([1, 2, 3])('fault injection, round %i', () => {
  it('the lamp is killed with SIGKILL in the middle of a burst and restarted: nothing is lost', async () => {
    const { env, deviceId, dataDir } = setup();
    let lamp = await startLampProcess(env);
    const burst = load(env);
    await sleep(700);
    lamp.proc.kill('SIGKILL');
    await lamp.exited;
    // the broker publishes the lamp's last will: offline
    await expect.poll(() => sim.statuses.get(deviceId), { timeout: 5000 }).toMatchObject({ online: false });
    await sleep(300);
    lamp = await startLampProcess(env);
    expect(await burst.done).toBe(0);
    await allArrived(deviceId, dataDir, lamp);
  });

  it('the broker restarts twice during the burst: nothing is lost', async () => {
    const { env, deviceId, dataDir } = setup();
    const lamp = await startLampProcess(env);
    const burst = load(env);
    await sleep(500);
    await broker.restart();
    await sleep(600);
    await broker.restart();
    expect(await burst.done).toBe(0);
    await allArrived(deviceId, dataDir, lamp);
  });

  it('the network is cut while records pile up, then comes back: nothing is lost', async () => {
    const { env, deviceId, dataDir } = setup();
    const lamp = await startLampProcess(env);
    await broker.stop();
    const burst = load(env);
    expect(await burst.done).toBe(0);
    await sleep(1000);
    expect(sim.device(deviceId).contiguous).toBe(0);
    await broker.start();
    await allArrived(deviceId, dataDir, lamp);
  });
});
