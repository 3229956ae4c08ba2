import { createInterface } from 'node:readline';

/**
 * Runs a JSON-lines filter over stdin: each non-empty line that is a JSON object goes to
 * `answer`, whose object is written as one line; a line that is not a JSON object, or that
 * `answer` rejects by throwing, gets {"id", "error"} and the rest carry on. Output is buffered
 * for throughput. Exit code 0, or 2 when any line failed.
 */
export async function jsonLines(answer: (q: Record<string, unknown>) => Record<string, unknown>): Promise<number> {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let failures = 0;
  const out: string[] = [];
  const flush = (): void => {
    if (out.length) process.stdout.write(out.join(''));
    out.length = 0;
  };
  for await (const line of rl) {
    if (!line.trim()) continue;
    let q: Record<string, unknown>;
    try {
      q = JSON.parse(line) as Record<string, unknown>;
      if (typeof q !== 'object' || q === null || Array.isArray(q)) throw new Error('not an object');
    } catch {
      failures++;
      out.push(JSON.stringify({ id: null, error: 'not a JSON object' }) + '\n');
      continue;
    }
    try {
      out.push(JSON.stringify({ id: q.id ?? null, ...answer(q) }) + '\n');
    } catch (err) {
      failures++;
      out.push(JSON.stringify({ id: q.id ?? null, error: (err as Error).message }) + '\n');
    }
    if (out.length >= 256) flush();
  }
  flush();
  return failures === 0 ? 0 : 2;
}
