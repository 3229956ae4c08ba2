import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The project folder (the one with package.json), whether running from source or from dist/. */
export function projectRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  root = dir;
  return dir;
}
