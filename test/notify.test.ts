import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/app.js';
import { startLampProcess } from './helpers/lamp-process.js';

const hasSocat = spawnSync('sh', ['-c', 'command -v socat']).status === 0;
let socat: ChildProcess | undefined;
afterEach(() => socat?.kill());

/** A real datagram socket in the role of systemd's notify socket, read by socat. */
async function notifySocket(): Promise<{ path: string; received: () => string }> {
  const sock = path.join(tempDir(), 'notify.sock');
  let out = '';
  socat = spawn('socat', ['-u', `UNIX-RECV:${sock}`, 'STDOUT']);
  socat.stdout?.on('data', (d: Buffer) => (out += String(d)));
  for (let i = 0; i < 100 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 20));
  return { path: sock, received: () => out };
}

describe('systemd notifications', () => {
  it.skipIf(!hasSocat)('sends READY=1, WATCHDOG=1 at half the interval, and STOPPING=1 when stopped', async () => {
    const sock = await notifySocket();
    const lamp = await startLampProcess({ LAMP_DATA_DIR: tempDir(), NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '1000000' });
    await expect.poll(() => sock.received(), { timeout: 5000 }).toContain('READY=1');
    await expect.poll(() => (sock.received().match(/WATCHDOG=1/g) ?? []).length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    lamp.proc.kill('SIGTERM');
    expect(await lamp.exited).toBe(0);
    await expect.poll(() => sock.received(), { timeout: 5000 }).toContain('STOPPING=1');
  });

  it('does nothing without NOTIFY_SOCKET', async () => {
    const lamp = await startLampProcess({ LAMP_DATA_DIR: tempDir(), NOTIFY_SOCKET: '' });
    expect(lamp.lines.some((l) => l.msg === 'systemd watchdog enabled')).toBe(false);
    lamp.proc.kill('SIGINT');
    expect(await lamp.exited).toBe(0);
  });
});
