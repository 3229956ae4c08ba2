import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * One temporary directory for the whole run: every test's data dirs, brokers and browser profiles
 * go under it (the workers inherit TMPDIR), and it is removed when the run ends, so a CI machine or
 * a developer's board does not collect a hundred lamp data dirs per `npm test`.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'lamp-tests-'));
  // Open to pass through, as /tmp is: a test broker started as root drops to the mosquitto user
  // before it reads its password and ACL files in here (each test's own dir stays private).
  chmodSync(dir, 0o755);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
