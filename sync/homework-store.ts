import type { Database, Statement } from 'better-sqlite3';
import type { CheckedItem } from '../scenes/homework/types.js';
import type { SqliteOutbox } from './outbox.js';

export interface HomeworkCheckRecord {
  check_id: string;
  items: CheckedItem[];
  summary: string;
}

/**
 * History of checked pages. `record` runs inside the turn's transaction; a page is recorded
 * when the lamp checks it and again when the cloud's verdicts are merged (same check_id: the
 * row is updated and the cloud receives the newer record, which replaces the older by check_id).
 */
export class HomeworkStore {
  private readonly upsert: Statement<unknown[]>;

  constructor(private readonly db: Database, private readonly outbox: SqliteOutbox) {
    this.upsert = db.prepare(`
      INSERT INTO homework_check (check_id, user_id, checked_at, updated_at, total, correct, incorrect, uncertain, items, summary)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (check_id) DO UPDATE SET updated_at = excluded.updated_at, correct = excluded.correct, incorrect = excluded.incorrect,
        uncertain = excluded.uncertain, items = excluded.items, summary = excluded.summary`);
  }

  record(userId: string, data: HomeworkCheckRecord, now: Date): void {
    const count = (v: CheckedItem['verdict']): number => data.items.filter((it) => it.verdict === v).length;
    const at = now.toISOString();
    this.upsert.run(data.check_id, userId, at, at, data.items.length, count('correct'), count('incorrect'), count('uncertain'), JSON.stringify(data.items), data.summary);
    this.outbox.append(
      'homework',
      {
        kind: 'check',
        user_id: userId,
        check_id: data.check_id,
        total: data.items.length,
        correct: count('correct'),
        // Uncertain items are listed but never counted as wrong.
        wrong_items: data.items.filter((it) => it.verdict === 'incorrect').map((it) => it.index),
        results: data.items.map(({ index, question, student_answer, correct_answer, verdict, confidence, kind, judged_by, judgment_basis }) => ({ index, question, student_answer, correct_answer, verdict, confidence, kind, judged_by, judgment_basis: judgment_basis ?? null })),
        summary: data.summary,
      },
      1,
      now,
    );
  }

  recent(userId: string, limit = 20): { check_id: string; checked_at: string; total: number; correct: number; incorrect: number; uncertain: number }[] {
    return this.db
      .prepare('SELECT check_id, checked_at, total, correct, incorrect, uncertain FROM homework_check WHERE user_id = ? ORDER BY checked_at DESC LIMIT ?')
      .all(userId, limit) as { check_id: string; checked_at: string; total: number; correct: number; incorrect: number; uncertain: number }[];
  }
}
