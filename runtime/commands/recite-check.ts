import { scoreRecitation } from '../../scenes/recite/score.js';
import { jsonLines } from './jsonl.js';

/**
 * `lamp recite-check --jsonl`: lines {"id","expected","recited"} in, one line out each:
 * {"id", "accuracy", "need_retry", "errors", "tolerated"}, or {"id", "error"} for a bad line.
 */
export function reciteCheckCommand(): Promise<number> {
  return jsonLines((q) => {
    if (typeof q.expected !== 'string' || typeof q.recited !== 'string') throw new Error('expected {"id","expected","recited"} with string texts');
    return { ...scoreRecitation(q.expected, q.recited) };
  });
}
