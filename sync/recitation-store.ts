import type { Database, Statement } from 'better-sqlite3';
import type { PatternUpdate } from '../scenes/recite/feedback.js';
import type { PatternMemory } from '../scenes/recite/patterns.js';
import type { ContentLibrary } from '../scenes/recite/material.js';
import { type AttemptRow, type Period, type ReportData, type WeakPoint, aggregate, localDay, localWording, periodBounds } from '../scenes/recite/report.js';
import type { ReviewEntry } from '../scenes/recite/schedule.js';
import type { ReciteContext } from '../scenes/recite/scene.js';
import type { RecitationError } from '../scenes/recite/score.js';
import type { SqliteOutbox } from './outbox.js';

export interface RecitationAttempt {
  material_id: string;
  expected: string;
  recited: string;
  accuracy: number;
  need_retry: boolean;
  errors: RecitationError[];
  is_review: boolean;
  duration_ms: number;
  at: string;
  pattern_updates: PatternUpdate[];
  schedule: ReviewEntry | null;
}

interface PatternRow extends PatternMemory {
  id: number;
}

/**
 * The recitation tables. `record` must run inside the turn's transaction: the attempt, the
 * error patterns it touches, the schedule and their upward records commit together or not at all.
 */
export class RecitationStore {
  private readonly patternsOf: Statement<[string], PatternRow>;
  private readonly scheduleOf: Statement<[string], ReviewEntry>;
  private readonly dueStmt: Statement<[string, string], ReviewEntry>;
  private readonly insertHistory: Statement<unknown[]>;
  private readonly bumpPattern: Statement<unknown[]>;
  private readonly insertPattern: Statement<unknown[]>;
  private readonly getPattern: Statement<[number], Record<string, unknown>>;
  private readonly upsertSchedule: Statement<unknown[]>;
  private readonly attemptsBetween: Statement<[string, string, string], AttemptRow>;
  private readonly weakBetween: Statement<[string, string, string], WeakPoint>;
  private readonly upsertReport: Statement<unknown[]>;

  constructor(
    private readonly db: Database,
    private readonly outbox: SqliteOutbox,
    private readonly library: ContentLibrary,
  ) {
    this.attemptsBetween = db.prepare('SELECT material_id, accuracy, created_at FROM recitation_history WHERE user_id = ? AND created_at >= ? AND created_at < ? ORDER BY created_at');
    this.weakBetween = db.prepare('SELECT material_id, error_type, content, occurrence_count FROM recitation_error_pattern WHERE user_id = ? AND last_seen >= ? AND last_seen < ? ORDER BY occurrence_count DESC LIMIT 3');
    this.upsertReport = db.prepare(
      `INSERT INTO recitation_report (user_id, period, period_start, attempts, avg_accuracy, data_json, wording, wording_source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'local', ?, ?)
       ON CONFLICT (user_id, period, period_start) DO UPDATE SET attempts = excluded.attempts, avg_accuracy = excluded.avg_accuracy, data_json = excluded.data_json, wording = excluded.wording, wording_source = excluded.wording_source, updated_at = excluded.updated_at`,
    );
    this.patternsOf = db.prepare('SELECT id, error_type, material_id, content, occurrence_count, memory_tip FROM recitation_error_pattern WHERE user_id = ?');
    this.scheduleOf = db.prepare('SELECT material_id, step, due_at, last_review_at, last_accuracy, created_at FROM recitation_review_schedule WHERE user_id = ?');
    this.dueStmt = db.prepare('SELECT material_id, step, due_at, last_review_at, last_accuracy, created_at FROM recitation_review_schedule WHERE user_id = ? AND due_at <= ? ORDER BY due_at');
    this.insertHistory = db.prepare(
      'INSERT INTO recitation_history (user_id, material_id, expected, recited, accuracy, need_retry, errors_json, is_review, duration_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    // count + 1 in SQL, never read-modify-write in JS: two writers cannot lose a count.
    this.bumpPattern = db.prepare(
      "UPDATE recitation_error_pattern SET occurrence_count = occurrence_count + 1, last_seen = ?, memory_tip = COALESCE(memory_tip, ?), tip_source = COALESCE(tip_source, CASE WHEN ? IS NULL THEN NULL ELSE 'local' END) WHERE id = ?",
    );
    this.insertPattern = db.prepare(
      "INSERT INTO recitation_error_pattern (user_id, error_type, material_id, content, occurrence_count, memory_tip, tip_source, first_seen, last_seen) VALUES (?, ?, ?, ?, 1, ?, CASE WHEN ? IS NULL THEN NULL ELSE 'local' END, ?, ?) ON CONFLICT (user_id, material_id, error_type, content) DO UPDATE SET occurrence_count = occurrence_count + 1, last_seen = excluded.last_seen RETURNING id",
    );
    this.getPattern = db.prepare('SELECT * FROM recitation_error_pattern WHERE id = ?');
    this.upsertSchedule = db.prepare(
      `INSERT INTO recitation_review_schedule (user_id, material_id, step, due_at, last_review_at, last_accuracy, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, material_id) DO UPDATE SET step = excluded.step, due_at = excluded.due_at, last_review_at = excluded.last_review_at, last_accuracy = excluded.last_accuracy`,
    );
  }

  /** Patterns whose tip is still the local template: the cloud may word them better. */
  localTips(limit: number): { id: number; user_id: string; material_id: string; error_type: string; content: string; memory_tip: string }[] {
    return this.db.prepare("SELECT id, user_id, material_id, error_type, content, memory_tip FROM recitation_error_pattern WHERE tip_source = 'local' ORDER BY last_seen DESC LIMIT ?").all(limit) as never;
  }

  /** Replaces a local tip with the cloud's (once; a cloud tip is never replaced) and queues the pattern upward. */
  setCloudTip(id: number, tip: string, now: Date): void {
    this.db.transaction(() => {
      const changed = this.db.prepare("UPDATE recitation_error_pattern SET memory_tip = ?, tip_source = 'cloud' WHERE id = ? AND tip_source = 'local'").run(tip, id).changes;
      if (changed) this.outbox.append('error_pattern', this.getPattern.get(id) ?? {}, 1, now);
    }).immediate();
  }

  /** Reports of finished periods (before `today`, before this week) still worded by the local template. */
  localReports(today: string, limit: number): { user_id: string; period: Period; period_start: string; data_json: string }[] {
    const thisWeek = localDay(periodBounds('week', today).start);
    return this.db
      .prepare("SELECT user_id, period, period_start, data_json FROM recitation_report WHERE wording_source = 'local' AND ((period = 'day' AND period_start < ?) OR (period = 'week' AND period_start < ?)) ORDER BY period_start DESC LIMIT ?")
      .all(today, thisWeek, limit) as never;
  }

  setCloudWording(userId: string, period: Period, periodStart: string, wording: string, now: Date): void {
    this.db.transaction(() => {
      const ts = now.toISOString();
      const changed = this.db.prepare("UPDATE recitation_report SET wording = ?, wording_source = 'cloud', updated_at = ? WHERE user_id = ? AND period = ? AND period_start = ? AND wording_source = 'local'").run(wording, ts, userId, period, periodStart).changes;
      if (changed) {
        const row = this.db.prepare('SELECT data_json FROM recitation_report WHERE user_id = ? AND period = ? AND period_start = ?').get(userId, period, periodStart) as { data_json: string };
        this.outbox.append('report', { user_id: userId, ...(JSON.parse(row.data_json) as object), wording, wording_source: 'cloud' }, 1, now);
      }
    }).immediate();
  }

  context(userId: string): ReciteContext {
    return { patterns: this.patternsOf.all(userId), schedule: this.scheduleOf.all(userId) };
  }

  /** Reviews due at `now`, earliest first. */
  due(userId: string, now: string): ReviewEntry[] {
    return this.dueStmt.all(userId, now);
  }

  record(userId: string, a: RecitationAttempt, now: Date): void {
    const info = this.insertHistory.run(userId, a.material_id, a.expected, a.recited, a.accuracy, a.need_retry ? 1 : 0, JSON.stringify(a.errors), a.is_review ? 1 : 0, a.duration_ms, a.at);
    this.outbox.append('recitation_history', { history_id: Number(info.lastInsertRowid), user_id: userId, material_id: a.material_id, accuracy: a.accuracy, need_retry: a.need_retry, errors: a.errors, is_review: a.is_review, duration_ms: a.duration_ms, created_at: a.at }, 1, now);

    const existing = this.patternsOf.all(userId);
    for (const u of a.pattern_updates) {
      if (!u.content) continue;
      const match = existing.find((p) => p.material_id === a.material_id && p.error_type === u.error_type && (p.content === u.content || p.content.includes(u.content) || u.content.includes(p.content)));
      let id: number;
      if (match) {
        this.bumpPattern.run(a.at, u.tip, u.tip, match.id);
        id = match.id;
      } else {
        id = (this.insertPattern.get(userId, u.error_type, a.material_id, u.content, u.tip, u.tip, a.at, a.at) as { id: number }).id;
        // a later error of the same attempt may be the same pattern (明月 after 月)
        existing.push({ id, error_type: u.error_type, material_id: a.material_id, content: u.content, occurrence_count: 1, memory_tip: u.tip });
      }
      this.outbox.append('error_pattern', this.getPattern.get(id) ?? {}, 1, now);
    }

    if (a.schedule) {
      const s = a.schedule;
      this.upsertSchedule.run(userId, s.material_id, s.step, s.due_at, s.last_review_at, s.last_accuracy, s.created_at);
      this.outbox.append('review_schedule', { user_id: userId, ...s }, 1, now);
    }
    const day = localDay(new Date(a.at));
    this.report(userId, 'day', day, now);
    this.report(userId, 'week', day, now);
  }

  /**
   * (Re)generates the report of the period containing `day` (YYYY-MM-DD, local) and queues it
   * upward. The same period always lands on the same row.
   */
  report(userId: string, period: Period, day: string, now: Date): ReportData & { wording: string } {
    const { start, end, previousStart } = periodBounds(period, day);
    const [s, e, p] = [start.toISOString(), end.toISOString(), previousStart.toISOString()];
    const periodStart = localDay(start);
    const data = aggregate(period, periodStart, this.attemptsBetween.all(userId, s, e), this.attemptsBetween.all(userId, p, s), this.weakBetween.all(userId, s, e), (id) => this.library.get(id)?.kind);
    const wording = localWording(data, (id) => this.library.get(id)?.title ?? id);
    const ts = now.toISOString();
    this.upsertReport.run(userId, period, periodStart, data.attempts, data.avg_accuracy, JSON.stringify(data), wording, ts, ts);
    this.outbox.append('report', { user_id: userId, ...data, wording, wording_source: 'local' }, 1, now);
    return { ...data, wording };
  }
}
