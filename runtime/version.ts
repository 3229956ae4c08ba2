import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './paths.js';

export const VERSION: string = (JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/** The git revision of the checkout, or the one recorded at install (`REVISION` file), when known. */
export function gitRevision(): string | undefined {
  try {
    return readFileSync(path.join(projectRoot(), 'REVISION'), 'utf8').trim() || undefined;
  } catch {
    // not an installed copy
  }
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: projectRoot(), stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 }).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}
