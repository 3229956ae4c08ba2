import { createInterface } from 'node:readline';
import { scoreRecitation } from '../../scenes/recite/score.js';

/**
 * `lamp recite-check --jsonl`: lines {"id","expected","recited"} in, one line out each:
 * {"id", "accuracy", "need_retry", "errors", "tolerated"}, or {"id", "error"} for a bad line.
 */
export async function reciteCheckCommand(): Promise<number> {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let failures = 0;
  const out: string[] = [];
  const flush = (): void => {
    if (out.length) process.stdout.write(out.join(''));
    out.length = 0;
  };
  for await (const line of rl) {
    if (!line.trim()) continue;
    let q: { id?: unknown; expected?: unknown; recited?: unknown };
    try {
      q = JSON.parse(line) as typeof q;
      if (typeof q !== 'object' || q === null || Array.isArray(q)) throw new Error('not an object');
    } catch {
      failures++;
      out.push(JSON.stringify({ id: null, error: 'not a JSON object' }) + '\n');
      continue;
    }
    if (typeof q.expected !== 'string' || typeof q.recited !== 'string') {
      failures++;
      out.push(JSON.stringify({ id: q.id ?? null, error: 'expected {"id","expected","recited"} with string texts' }) + '\n');
      continue;
    }
    try {
      out.push(JSON.stringify({ id: q.id ?? null, ...scoreRecitation(q.expected, q.recited) }) + '\n');
    } catch (err) {
      failures++;
      out.push(JSON.stringify({ id: q.id ?? null, error: (err as Error).message }) + '\n');
    }
    if (out.length >= 256) flush();
  }
  flush();
  return failures === 0 ? 0 : 2;
}
