import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { projectRoot } from '../../runtime/paths.js';
import { tempDir } from './app.js';

export const MOSQUITTO = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => spawnSync('test', ['-x', p]).status === 0);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitForPort(port: number, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1', () => {
        c.destroy();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`mosquitto did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Broker {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  log(): string;
}

export interface BrokerOptions {
  /** username → password; turns authentication and the per-device ACL on. */
  users?: Record<string, string>;
}

/**
 * A real mosquitto for a test: loopback, a free port, no persistence, no pid file (it would
 * fail when started as root). With `users`, anonymous access is off and the ACL of
 * docs/mqtt.md confines each device to its own subtree; the user "cloud" may use every device's.
 */
export async function startBroker(opts: BrokerOptions = {}): Promise<Broker> {
  if (!MOSQUITTO) throw new Error('mosquitto is not installed (apt install mosquitto; scripts/setup.sh does)');
  const dir = tempDir('lamp-broker-');
  const port = await freePort();
  const conf = [`listener ${port} 127.0.0.1`, 'persistence false', 'log_dest stdout', 'log_type error', 'log_type warning', 'log_type notice'];
  if (opts.users) {
    const pw = path.join(dir, 'passwd');
    writeFileSync(pw, '');
    for (const [user, pass] of Object.entries(opts.users)) spawnSync('mosquitto_passwd', ['-b', pw, user, pass]);
    const acl = path.join(dir, 'acl');
    writeFileSync(acl, readFileSync(path.join(projectRoot(), 'sync', 'mosquitto', 'acl'), 'utf8'));
    conf.push('allow_anonymous false', `password_file ${pw}`, `acl_file ${acl}`);
  } else {
    conf.push('allow_anonymous true');
  }
  const confFile = path.join(dir, 'mosquitto.conf');
  writeFileSync(confFile, conf.join('\n') + '\n');
  // Started as root, mosquitto drops to its own user before it reads the password and ACL files.
  chmodSync(dir, 0o755);
  for (const f of readdirSync(dir)) chmodSync(path.join(dir, f), 0o644);
  let proc: ChildProcess | undefined;
  let output = '';
  const broker: Broker = {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    log: () => output,
    async start() {
      proc = spawn(MOSQUITTO as string, ['-c', confFile], { stdio: ['ignore', 'pipe', 'pipe'] });
      proc.stdout?.on('data', (d: Buffer) => (output += String(d)));
      proc.stderr?.on('data', (d: Buffer) => (output += String(d)));
      await waitForPort(port);
    },
    async stop() {
      const p = proc;
      if (!p || p.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGTERM');
      });
      proc = undefined;
    },
    async restart() {
      await broker.stop();
      await broker.start();
    },
  };
  await broker.start();
  return broker;
}
