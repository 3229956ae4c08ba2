import BetterSqlite3, { type Database } from 'better-sqlite3';
import { accessSync, closeSync, constants, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, LampError, toLampError } from '../runtime/errors.js';
import { migrate } from './migrations.js';

export type { Database };

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Makes sure the data directory exists and is writable, with an error a technician can act on. */
export function ensureDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK | constants.R_OK);
  } catch (err) {
    throw new LampError(
      ErrorCode.STORAGE_DIR_UNWRITABLE,
      `data directory ${dir} is not writable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); set LAMP_DATA_DIR or fix its owner`,
      { dir },
    );
  }
}

/** A non-empty file that does not start with the SQLite header is never opened (and so never overwritten). */
function assertSqliteFile(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return; // does not exist yet: SQLite creates it
  }
  if (size === 0) return;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!head.equals(SQLITE_HEADER)) {
    throw new LampError(ErrorCode.STORAGE_NOT_SQLITE, `${file} is not an SQLite database; it was left untouched — move it aside to start with an empty one`, { file });
  }
}

export interface OpenOptions {
  readonly?: boolean;
  /** Skip migrations (doctor inspects a database as it is). */
  migrate?: boolean;
}

/**
 * Opens the lamp database: WAL (readers never block the writer), foreign keys on, a busy timeout
 * for a second process such as `lamp outbox-load`, and synchronous=FULL because outbox commits
 * must survive a power cut, not only a crash.
 */
export function openDatabase(file: string, opts: OpenOptions = {}): Database {
  if (!opts.readonly) ensureDataDir(path.dirname(file));
  assertSqliteFile(file);
  let db: Database;
  try {
    db = new BetterSqlite3(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  } catch (err) {
    throw toLampError(err, ErrorCode.STORAGE_CORRUPT, `cannot open database ${file}`, { file });
  }
  try {
    db.pragma('busy_timeout = 5000');
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
    }
    db.pragma('foreign_keys = ON');
    if (opts.migrate !== false && !opts.readonly) migrate(db);
  } catch (err) {
    db.close();
    if (err instanceof LampError) throw err;
    const code = (err as { code?: string }).code;
    throw toLampError(err, code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' ? ErrorCode.STORAGE_CORRUPT : ErrorCode.STORAGE_MIGRATION_FAILED, `cannot prepare database ${file}`, { file });
  }
  return db;
}

export function databasePath(dataDir: string): string {
  return path.join(dataDir, 'lamp.db');
}

/** `PRAGMA integrity_check`: 'ok' or the list of problems SQLite reports. */
export function integrityCheck(db: Database): string[] {
  const rows = db.pragma('integrity_check') as { integrity_check: string }[];
  return rows.map((r) => r.integrity_check);
}
