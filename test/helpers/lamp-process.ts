import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../runtime/paths.js';

export const CLI = path.join(projectRoot(), 'dist', 'runtime', 'cli.js');

function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
}

/** Runs a lamp CLI command to completion. */
export function runCli(args: string[], env: Record<string, string> = {}, input?: string): { code: number | null; stdout: string; stderr: string } {
  assertBuilt();
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, LAMP_LOG_FORMAT: 'json', ...env }, input, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface LampProcess {
  proc: ChildProcess;
  lines: Record<string, unknown>[];
  url: string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  waitForLine(pred: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
}

/** Starts `lamp start` as its own process and resolves when it logged "lamp ready". */
export async function startLampProcess(env: Record<string, string>, timeoutMs = 20_000): Promise<LampProcess> {
  assertBuilt();
  const proc = spawn(process.execPath, [CLI, 'start'], {
    env: { ...process.env, LAMP_LOG_FORMAT: 'json', LAMP_HTTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  let buf = '';
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => (stderr += String(d)));
  proc.stdout?.on('data', (d: Buffer) => {
    buf += String(d);
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const raw = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        line = { raw };
      }
      lines.push(line);
      for (const w of [...waiters]) if (w.pred(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitForLine = (pred: (l: Record<string, unknown>) => boolean, ms = timeoutMs): Promise<Record<string, unknown>> => {
    const seen = lines.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; log so far:\n${lines.map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`)), ms);
      waiters.push({ pred, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      void exited.then((code) => reject(new Error(`lamp exited with ${code} before the expected line:\n${lines.map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`)));
    });
  };
  const ready = await waitForLine((l) => l.msg === 'lamp ready');
  return { proc, lines, url: String(ready.url).replace(/\/$/, ''), exited, waitForLine };
}
