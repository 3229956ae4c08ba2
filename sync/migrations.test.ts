import BetterSqlite3, { type Database } from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../runtime/errors.js';
import { LATEST_VERSION, MIGRATIONS, type Migration, migrate, schemaVersion } from './migrations.js';

const dir = mkdtempSync(path.join(tmpdir(), 'lamp-migrate-'));
let n = 0;
const fresh = (): Database => new BetterSqlite3(path.join(dir, `db-${++n}.sqlite`));

function schemaOf(db: Database): string[] {
  return (db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as { type: string; name: string; sql: string }[]).map(
    (r) => `${r.type} ${r.name}: ${r.sql.replace(/\s+/g, ' ')}`,
  );
}

/** A row for every table that exists at a given version, so upgrades are tested with data in them. */
function seed(db: Database, version: number): void {
  if (version >= 1) {
    db.prepare("INSERT INTO session (id, active_scene, state_json, created_at, updated_at) VALUES ('default', 'chat', '{}', 't', 't')").run();
    db.prepare("INSERT INTO outbox (id, stream, schema, ts, data_json) VALUES ('r1', 'event', 1, 't', '{}')").run();
  }
  if (version >= 2) db.prepare("INSERT INTO meta (key, value, updated_at) VALUES ('k', 'v', 't')").run();
  if (version >= 5) db.prepare("INSERT INTO command_log VALUES ('c1', 'set_config', 1, '{}', 't')").run();
  if (version >= 6) db.prepare("INSERT INTO homework_check VALUES ('h1', 'u', 't', 't', 2, 1, 0, 1, '[]', 's')").run();
  if (version >= 4) {
    db.prepare("INSERT INTO recitation_report (user_id, period, period_start, attempts, avg_accuracy, data_json, wording, wording_source, created_at, updated_at) VALUES ('u', 'day', '2026-11-22', 1, 90, '{}', 'w', 'local', 't', 't')").run();
  }
  if (version >= 3) {
    db.prepare("INSERT INTO recitation_history (user_id, material_id, expected, recited, accuracy, need_retry, errors_json, is_review, duration_ms, created_at) VALUES ('u', 'm', 'e', 'r', 90, 0, '[]', 0, 1000, 't')").run();
  }
}

describe('migrations', () => {
  it('versions are 1..N in order', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it('an empty database migrates to the latest version', () => {
    const db = fresh();
    expect(migrate(db)).toEqual({ from: 0, to: LATEST_VERSION });
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(migrate(db)).toEqual({ from: LATEST_VERSION, to: LATEST_VERSION });
  });

  for (let from = 1; from < LATEST_VERSION; from++) {
    it(`a database at version ${from} with data migrates to the same schema as a fresh one, keeping its rows`, () => {
      const reference = fresh();
      migrate(reference);
      const db = fresh();
      migrate(db, MIGRATIONS, from);
      expect(schemaVersion(db)).toBe(from);
      seed(db, from);
      migrate(db);
      expect(schemaVersion(db)).toBe(LATEST_VERSION);
      expect(schemaOf(db)).toEqual(schemaOf(reference));
      expect((db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n).toBe(1);
    });
  }

  it('a failing migration rolls back whole and leaves the previous version', () => {
    const broken: Migration[] = [...MIGRATIONS, { version: LATEST_VERSION + 1, name: 'broken', up: 'CREATE TABLE half (x INTEGER); INSERT INTO nowhere VALUES (1);' }];
    const db = fresh();
    const err = (() => {
      try {
        migrate(db, broken);
      } catch (e) {
        return e;
      }
    })();
    expect(isLampError(err, ErrorCode.STORAGE_MIGRATION_FAILED)).toBe(true);
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
  });

  it('refuses a database from a newer runtime', () => {
    const db = fresh();
    db.pragma(`user_version = ${LATEST_VERSION + 5}`);
    expect(() => migrate(db)).toThrow(/LAMP-5005/);
  });
});
