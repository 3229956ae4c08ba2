/**
 * npm run bench:recite — recitation checks per second and p50/p99 latency for a 20-character
 * poem and a ~600-character text, each recited with a few realistic slips.
 */
import { cpus } from 'node:os';
import { builtinMaterials } from '../scenes/recite/library.js';
import { scoreRecitation } from '../scenes/recite/score.js';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}

/** Deterministic slips: drop, swap in a homophone-free wrong character, duplicate, every `every` characters. */
function withSlips(text: string, every: number): string {
  const chars = [...text.replace(/[，。！？；：、\n]/g, '')];
  const out: string[] = [];
  chars.forEach((c, i) => {
    if (i % every === every - 1) return; // omission
    if (i % every === 3) out.push('一'); // wrong word
    else out.push(c);
    if (i % (every * 2) === 5) out.push('啊'); // insertion
  });
  return out.join('');
}

function bench(name: string, expected: string, recited: string, iterations: number): { name: string; chars: number; perSecond: number; p50: number; p99: number } {
  for (let i = 0; i < 200; i++) scoreRecitation(expected, recited);
  const lat: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    scoreRecitation(expected, recited);
    lat.push(performance.now() - t);
  }
  const total = performance.now() - t0;
  return { name, chars: [...expected.replace(/[，。！？；：、\n]/g, '')].length, perSecond: Math.round((iterations / total) * 1000), p50: pct(lat, 50), p99: pct(lat, 99) };
}

const poems = builtinMaterials().filter((m) => m.kind === 'poem');
const short = poems.find((m) => m.title === '静夜思')!.text;
let long = '';
for (const p of poems) {
  if ([...long.replace(/[，。！？；：、\n]/g, '')].length >= 600) break;
  long += p.text + '\n';
}

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
const results = [bench('20-character poem (静夜思)', short, withSlips(short, 7), 20_000), bench('~600-character text (poems joined)', long, withSlips(long, 9), 500)];
for (const r of results) console.log(`${r.name}, ${r.chars} chars: ${r.perSecond} checks/s, p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms`);
console.log(JSON.stringify({ bench: 'recite', results }));
