import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Helpers for the real-binding tests: a named pipe stands for a device that blocks until data
 * arrives, and ALSA's `file` plugin over the `null` device turns such a pipe into a sound card.
 */

export function mkfifo(file: string): string {
  const r = spawnSync('mkfifo', [file]);
  if (r.status !== 0) throw new Error(`mkfifo ${file} failed: ${r.stderr.toString()}`);
  return file;
}

/** Polls `cond` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const t0 = performance.now();
  while (!cond()) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * An ALSA configuration in `dir` defining the capture PCM `lamptest`, which reads its samples
 * from `infile` (a pipe the test writes). Returns the environment that makes arecord see it
 * (ALSA reads $XDG_CONFIG_HOME/alsa/asoundrc).
 */
export function alsaCaptureFromFile(dir: string, infile: string): NodeJS.ProcessEnv {
  mkdirSync(path.join(dir, 'alsa'), { recursive: true });
  writeFileSync(
    path.join(dir, 'alsa', 'asoundrc'),
    `pcm.lamptest {\n  type file\n  slave.pcm null\n  file "/dev/null"\n  infile "${infile}"\n  format raw\n}\n`,
  );
  return { XDG_CONFIG_HOME: dir };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
