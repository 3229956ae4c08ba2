import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode, LampError } from '../errors.js';
import { configLeaves } from './env.js';
import { type ConfigProblem, loadConfig } from './load.js';
import { configSchema } from './schema.js';

const cwd = mkdtempSync(path.join(tmpdir(), 'lamp-config-'));

function problemsOf(fn: () => unknown): ConfigProblem[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(LampError);
    expect((err as LampError).code).toBe(ErrorCode.CONFIG_INVALID);
    return (err as LampError).context.problems as ConfigProblem[];
  }
  throw new Error('expected the config to be rejected');
}

describe('config', () => {
  it('runs with no configuration: simulator, ./var, loopback 8080, offline', () => {
    const c = loadConfig({ env: {}, cwd });
    expect(c.dataDir).toBe(path.join(cwd, 'var'));
    expect(c.http).toMatchObject({ host: '127.0.0.1', port: 8080, simulatorPage: true });
    expect(c.drivers.camera).toBe('simulator');
    expect(c.mqtt.url).toBeUndefined();
    expect(c.models.dir).toBe(path.join(cwd, 'var', 'models'));
  });

  it('derives LAMP_* overrides from the schema paths', () => {
    const names = configLeaves(configSchema).map((l) => l.env);
    expect(names).toEqual(expect.arrayContaining(['LAMP_DATA_DIR', 'LAMP_HTTP_PORT', 'LAMP_DEVICE_ID', 'LAMP_MQTT_URL', 'LAMP_LOG_LEVEL', 'LAMP_DRIVERS_CAMERA']));
    const c = loadConfig({ env: { LAMP_DATA_DIR: '/tmp/lampdata', LAMP_HTTP_PORT: '9090', LAMP_HTTP_SIMULATOR_PAGE: 'false', LAMP_DEVICE_ID: 'lamp-0042' }, cwd });
    expect(c.dataDir).toBe('/tmp/lampdata');
    expect(c.http.port).toBe(9090);
    expect(c.http.simulatorPage).toBe(false);
    expect(c.deviceId).toBe('lamp-0042');
  });

  it('env overrides the file, and the file overrides defaults', () => {
    const file = path.join(cwd, 'both.json');
    writeFileSync(file, JSON.stringify({ http: { port: 7000, host: '0.0.0.0' } }));
    const c = loadConfig({ file, env: { LAMP_HTTP_PORT: '7001' }, cwd });
    expect(c.http.port).toBe(7001);
    expect(c.http.host).toBe('0.0.0.0');
  });

  it('lists every invalid field at once, with its path and where it came from', () => {
    const file = path.join(cwd, 'bad.json');
    writeFileSync(file, JSON.stringify({ http: { port: 70000, maxClients: 0 }, drivers: { camera: 'usb' }, deviceId: 'Lamp 1', colour: 'red' }));
    const problems = problemsOf(() => loadConfig({ file, env: { LAMP_LOG_LEVEL: 'loud', LAMP_SESSION_IDLE_RESET_MINUTES: 'soon' }, cwd }));
    const paths = problems.map((p) => p.path).sort();
    expect(paths).toEqual(['colour', 'deviceId', 'drivers.camera', 'http.maxClients', 'http.port', 'log.level', 'session.idleResetMinutes']);
    expect(problems.find((p) => p.path === 'log.level')?.source).toBe('LAMP_LOG_LEVEL');
    expect(problems.find((p) => p.path === 'http.port')?.source).toBe('bad.json');
  });

  it('a config file that is not JSON, or not an object, gets its own clear error', () => {
    const file = path.join(cwd, 'broken.json');
    writeFileSync(file, '{ "http": { port: 1 ');
    expect(() => loadConfig({ file, env: {}, cwd })).toThrow(/not valid JSON.*LAMP-1003/);
    writeFileSync(file, '[1,2]');
    expect(() => loadConfig({ file, env: {}, cwd })).toThrow(/must hold a JSON object/);
    expect(() => loadConfig({ file: path.join(cwd, 'absent.json'), env: {}, cwd })).toThrow(/LAMP-1002/);
  });

  it('marks the fields that may change while the lamp runs', () => {
    const live = configLeaves(configSchema).filter((l) => l.live).map((l) => l.path.join('.'));
    expect(live).toEqual(['log.level', 'audio.volume', 'session.idleResetMinutes']);
  });
});

describe('docs/configuration.md', () => {
  it('matches the schema', async () => {
    const { readFileSync } = await import('node:fs');
    const { projectRoot } = await import('../paths.js');
    const { configReference } = await import('./docs.js');
    expect(readFileSync(path.join(projectRoot(), 'docs', 'configuration.md'), 'utf8')).toBe(configReference());
  });
});
