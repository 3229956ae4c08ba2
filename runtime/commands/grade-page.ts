import { readFile } from 'node:fs/promises';
import { modelsDirOf } from '../../models/manifest.js';
import type { CheckedItem } from '../../scenes/homework/types.js';
import type { LampConfig } from '../config/schema.js';
import { isLampError } from '../errors.js';
import { HomeworkChecker } from '../homework/checker.js';

/** The per-page summary of `grade-page`: uncertain items are listed but never counted wrong. */
export function pageSummary(items: CheckedItem[]): Record<string, unknown> {
  return {
    total: items.length,
    correct: items.filter((it) => it.verdict === 'correct').length,
    incorrect: items.filter((it) => it.verdict === 'incorrect').length,
    uncertain: items.filter((it) => it.verdict === 'uncertain').length,
    wrong_items: items.filter((it) => it.verdict === 'incorrect').map((it) => it.index),
  };
}

/**
 * `lamp grade-page --jsonl IMAGE...`: one JSON line per image with every problem found, its
 * verdict and where it is in the photo, a summary and the time of each stage. Models load once
 * for all images. A page that fails the quality gate or cannot be read gets `error` instead,
 * and the other images are still graded; the exit code is 1 when any image failed.
 */
export async function gradePageCommand(config: LampConfig, images: string[], opts: { dumpDir?: string } = {}): Promise<number> {
  if (images.length === 0) {
    console.error('lamp grade-page: name one or more image files');
    return 64;
  }
  let checker: HomeworkChecker;
  try {
    checker = await HomeworkChecker.load({ modelsDir: modelsDirOf(config), minConfidence: config.homework.minConfidence, dumpDir: opts.dumpDir });
  } catch (err) {
    console.error(`lamp grade-page: ${isLampError(err) ? err.message : String(err)}`);
    return 1;
  }
  let failed = 0;
  try {
    for (const image of images) {
      try {
        const r = await checker.check(await readFile(image));
        if (!r.check.ok) {
          failed++;
          console.log(JSON.stringify({ image, items: [], error: { issue: r.check.issue, hint: r.check.hint }, timings_ms: r.timings_ms }));
          continue;
        }
        const items = r.check.items.map(({ question, student_answer, correct_answer, verdict, confidence, bbox, kind, reason }) => ({ question, student_answer, correct_answer, verdict, confidence, bbox, kind, ...(reason ? { reason } : {}) }));
        console.log(JSON.stringify({ image, items, summary: pageSummary(r.check.items), timings_ms: r.timings_ms }));
      } catch (err) {
        failed++;
        console.log(JSON.stringify({ image, items: [], error: { message: isLampError(err) ? err.message : (err as Error).message } }));
      }
    }
  } finally {
    await checker.release();
  }
  return failed === 0 ? 0 : 1;
}
