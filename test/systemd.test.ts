import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../runtime/paths.js';
import { tempDir } from './helpers/app.js';

const UNIT = path.join(projectRoot(), 'systemd', 'lamp.service');
const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));

function verify(file: string): { code: number | null; output: string } {
  const r = spawnSync(analyze as string, ['verify', file], { encoding: 'utf8' });
  return { code: r.status, output: r.stdout + r.stderr };
}

describe('systemd/lamp.service', () => {
  it('declares notify, watchdog, restart, user, state dir and env file', () => {
    const unit = readFileSync(UNIT, 'utf8');
    for (const line of ['Type=notify', 'User=lamp', 'StateDirectory=lamp', 'Restart=on-failure', 'RestartPreventExitStatus=78']) expect(unit).toContain(line);
    expect(unit).toMatch(/^WatchdogSec=\d+/m);
    expect(unit).toMatch(/^EnvironmentFile=-?\/etc\/lamp\/lamp\.env$/m);
  });

  it.skipIf(!analyze)('passes systemd-analyze verify without a warning about the unit', () => {
    const r = verify(UNIT);
    expect(r.output).not.toMatch(/lamp\.service:\d+:/);
    expect(r.code).toBe(0);
  });

  it.skipIf(!analyze)('the verify check does catch a broken unit', () => {
    const bad = path.join(tempDir(), 'lamp.service');
    writeFileSync(bad, readFileSync(UNIT, 'utf8').replace('Type=notify', 'Type=notifyy'));
    expect(verify(bad).output).toMatch(/lamp\.service:\d+: Failed to parse service type/);
  });
});
