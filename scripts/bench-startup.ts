/**
 * npm run bench:startup — median of 5 cold starts of `lamp start` (new process, new data dir)
 * to the "lamp ready" log line, and the resident memory once it idles after start.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'runtime', 'cli.js');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function once(): Promise<{ readyMs: number; rssMb: number; rssLoadedMb: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'lamp-bench-'));
  const t0 = performance.now();
  const proc = spawn(process.execPath, [cli, 'start'], {
    env: { ...process.env, LAMP_DATA_DIR: dataDir, LAMP_HTTP_PORT: '0', LAMP_LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const readyMs = await new Promise<number>((resolve, reject) => {
    let buf = '';
    proc.stdout.on('data', (d: Buffer) => {
      buf += String(d);
      if (buf.includes('"msg":"lamp ready"')) resolve(performance.now() - t0);
    });
    proc.on('exit', (code) => reject(new Error(`lamp exited with ${code} before ready`)));
  });
  await new Promise((r) => setTimeout(r, 1000));
  const rss = rssMb(proc.pid as number);
  // The OCR models load in the background 2 s after start: the lamp's size with everything loaded.
  await new Promise((r) => setTimeout(r, 5000));
  const rssLoaded = rssMb(proc.pid as number);
  proc.kill('SIGINT');
  await new Promise((r) => proc.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  return { readyMs, rssMb: rss, rssLoadedMb: rssLoaded };
}

const results: { readyMs: number; rssMb: number; rssLoadedMb: number }[] = [];
for (let i = 0; i < RUNS; i++) results.push(await once());
const ready = results.map((r) => r.readyMs);
const rss = results.map((r) => r.rssMb);
const rssLoaded = results.map((r) => r.rssLoadedMb);
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
console.log(`cold start to "lamp ready": median ${median(ready).toFixed(0)} ms (runs: ${ready.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`RSS 1 s after ready:        median ${median(rss).toFixed(1)} MB (runs: ${rss.map((x) => x.toFixed(1)).join(', ')})`);
console.log(`RSS 6 s after ready (voice and OCR models loaded): median ${median(rssLoaded).toFixed(1)} MB (runs: ${rssLoaded.map((x) => x.toFixed(1)).join(', ')})`);
console.log(JSON.stringify({ bench: 'startup', runs: RUNS, ready_ms_median: Math.round(median(ready)), rss_mb_median: Math.round(median(rss) * 10) / 10 }));
