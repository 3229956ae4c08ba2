import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { caught } from '../test/helpers/caught.js';
import { ErrorCode, isLampError } from '../runtime/errors.js';
import { integrityCheck, openDatabase } from './db.js';
import { LATEST_VERSION, schemaVersion } from './migrations.js';
import { SqliteOutbox } from './outbox.js';

const dir = mkdtempSync(path.join(tmpdir(), 'lamp-db-'));

describe('openDatabase', () => {
  it('opens with WAL, foreign keys, FULL sync and a busy timeout, migrated', () => {
    const db = openDatabase(path.join(dir, 'a', 'lamp.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(integrityCheck(db)).toEqual(['ok']);
    db.close();
  });

  it('refuses a file that is not SQLite and leaves it exactly as it was', () => {
    const file = path.join(dir, 'notes.db');
    const content = 'these are a technician\'s notes, not a database\n'.repeat(20);
    writeFileSync(file, content);
    const err = caught(() => openDatabase(file));
    expect(isLampError(err, ErrorCode.STORAGE_NOT_SQLITE)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('reports a corrupt SQLite file without overwriting it', () => {
    const file = path.join(dir, 'corrupt.db');
    const good = openDatabase(file);
    good.close();
    const bytes = readFileSync(file);
    bytes.fill(0xab, 100, 4096); // header intact, first page body destroyed
    writeFileSync(file, bytes);
    const err = caught(() => openDatabase(file));
    expect(isLampError(err, ErrorCode.STORAGE_CORRUPT)).toBe(true);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('an unwritable data directory gives STORAGE_DIR_UNWRITABLE naming the directory', () => {
    const blocker = path.join(dir, 'a-file');
    writeFileSync(blocker, 'x');
    const err = caught(() => openDatabase(path.join(blocker, 'data', 'lamp.db')));
    expect(isLampError(err, ErrorCode.STORAGE_DIR_UNWRITABLE)).toBe(true);
    expect((err as Error).message).toContain(path.join(blocker, 'data'));
  });

  it('outbox seq numbers are never reused after rows are deleted and the file vacuumed', () => {
    const db = openDatabase(path.join(dir, 'seq.db'));
    const outbox = new SqliteOutbox(db);
    expect(outbox.append('event', { n: 1 }).seq).toBe(1);
    expect(outbox.append('event', { n: 2 }).seq).toBe(2);
    db.exec('DELETE FROM outbox');
    db.exec('VACUUM');
    expect(outbox.append('event', { n: 3 }).seq).toBe(3);
    expect(outbox.pending()).toBe(1);
    db.close();
  });
});
