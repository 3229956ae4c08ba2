import type { Database } from 'better-sqlite3';
import { ErrorCode, LampError, toLampError } from '../runtime/errors.js';

export interface Migration {
  version: number;
  name: string;
  up: string;
}

/**
 * Forward-only schema history. Never edit a migration that has shipped; add the next one.
 * The database's `user_version` holds the number of the last one applied.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'session and outbox',
    up: `
      CREATE TABLE session (
        id            TEXT PRIMARY KEY,
        active_scene  TEXT NOT NULL DEFAULT 'chat',
        state_json    TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        updated_at    TEXT NOT NULL
      ) STRICT;

      -- Upward records. seq is AUTOINCREMENT so a number is never reused, even after the
      -- acknowledged rows are purged or the file is vacuumed.
      CREATE TABLE outbox (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        id          TEXT NOT NULL UNIQUE,
        stream      TEXT NOT NULL,
        schema      INTEGER NOT NULL,
        ts          TEXT NOT NULL,
        data_json   TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'device meta',
    up: `
      -- Small facts about this installation: first start, the highest wall-clock time seen
      -- (a clock that jumps backwards after a power loss is detected against it).
      CREATE TABLE meta (
        key         TEXT PRIMARY KEY,
        value       TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 3,
    name: 'recitation learning data',
    up: `
      CREATE TABLE recitation_history (
        id           INTEGER PRIMARY KEY,
        user_id      TEXT NOT NULL,
        material_id  TEXT NOT NULL,
        expected     TEXT NOT NULL,
        recited      TEXT NOT NULL,
        accuracy     INTEGER NOT NULL,
        need_retry   INTEGER NOT NULL,
        errors_json  TEXT NOT NULL,
        is_review    INTEGER NOT NULL,
        duration_ms  INTEGER NOT NULL,
        created_at   TEXT NOT NULL
      ) STRICT;
      -- reports aggregate a user's attempts by day; the scene reads a material's recent attempts
      CREATE INDEX recitation_history_user_time ON recitation_history(user_id, created_at);
      CREATE INDEX recitation_history_user_material ON recitation_history(user_id, material_id, created_at);

      CREATE TABLE recitation_error_pattern (
        id                INTEGER PRIMARY KEY,
        user_id           TEXT NOT NULL,
        error_type        TEXT NOT NULL,
        material_id       TEXT NOT NULL,
        content           TEXT NOT NULL,
        occurrence_count  INTEGER NOT NULL,
        memory_tip        TEXT,
        tip_source        TEXT,
        first_seen        TEXT NOT NULL,
        last_seen         TEXT NOT NULL,
        UNIQUE (user_id, material_id, error_type, content)
      ) STRICT;

      CREATE TABLE recitation_review_schedule (
        user_id         TEXT NOT NULL,
        material_id     TEXT NOT NULL,
        step            INTEGER NOT NULL,
        due_at          TEXT NOT NULL,
        last_review_at  TEXT NOT NULL,
        last_accuracy   INTEGER NOT NULL,
        created_at      TEXT NOT NULL,
        PRIMARY KEY (user_id, material_id)
      ) STRICT;
      -- "what is due now, ordered by due time"
      CREATE INDEX recitation_review_due ON recitation_review_schedule(user_id, due_at);
    `,
  },
  {
    version: 4,
    name: 'recitation reports',
    up: `
      -- one row per user, period and period start: regenerating a report updates it
      CREATE TABLE recitation_report (
        user_id         TEXT NOT NULL,
        period          TEXT NOT NULL CHECK (period IN ('day', 'week')),
        period_start    TEXT NOT NULL,
        attempts        INTEGER NOT NULL,
        avg_accuracy    INTEGER,
        data_json       TEXT NOT NULL,
        wording         TEXT NOT NULL,
        wording_source  TEXT NOT NULL,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL,
        PRIMARY KEY (user_id, period, period_start)
      ) STRICT;
      CREATE INDEX recitation_error_pattern_recent ON recitation_error_pattern(user_id, last_seen);
    `,
  },
  {
    version: 5,
    name: 'cloud commands and pushed materials',
    up: `
      -- every command executed, so a repeated delivery is answered again, not executed again
      CREATE TABLE command_log (
        id           TEXT PRIMARY KEY,
        name         TEXT NOT NULL,
        ok           INTEGER NOT NULL,
        result_json  TEXT NOT NULL,
        created_at   TEXT NOT NULL
      ) STRICT;
      -- materials pushed by the cloud; they replace built-in ones with the same id
      CREATE TABLE material (
        id         TEXT PRIMARY KEY,
        json       TEXT NOT NULL,
        pushed_at  TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 6,
    name: 'homework checks',
    up: `
      CREATE TABLE homework_check (
        check_id    TEXT PRIMARY KEY,
        user_id     TEXT NOT NULL,
        checked_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        total       INTEGER NOT NULL,
        correct     INTEGER NOT NULL,
        incorrect   INTEGER NOT NULL,
        uncertain   INTEGER NOT NULL,
        items       TEXT NOT NULL,
        summary     TEXT NOT NULL
      ) STRICT;
      CREATE INDEX homework_check_by_user ON homework_check (user_id, checked_at);
    `,
  },
];

export const LATEST_VERSION = MIGRATIONS.length === 0 ? 0 : (MIGRATIONS[MIGRATIONS.length - 1] as Migration).version;

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Applies every migration newer than the database, each in its own transaction together with
 * the version bump, so a crash leaves the database at a whole version. Refuses a database
 * written by a newer runtime instead of guessing.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS, target?: number): { from: number; to: number } {
  const from = schemaVersion(db);
  const latest = migrations.length === 0 ? 0 : (migrations[migrations.length - 1] as Migration).version;
  const to = target ?? latest;
  if (from > latest) {
    throw new LampError(ErrorCode.STORAGE_NEWER_SCHEMA, `database schema version ${from} is newer than this runtime knows (${latest}); refusing to touch it`, { from, latest });
  }
  for (const m of migrations) {
    if (m.version <= from || m.version > to) continue;
    try {
      db.transaction(() => {
        db.exec(m.up);
        db.pragma(`user_version = ${m.version}`);
      }).immediate();
    } catch (err) {
      throw toLampError(err, ErrorCode.STORAGE_MIGRATION_FAILED, `migration ${m.version} (${m.name}) failed`, { version: m.version });
    }
  }
  return { from, to: Math.max(from, to) };
}
