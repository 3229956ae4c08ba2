import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';

export interface OutboxRecord {
  id: string;
  seq: number;
  stream: string;
  schema: number;
  ts: string;
  data: unknown;
}

/**
 * Upward records waiting for the cloud. `append` must be called inside the transaction that
 * writes the learning data the record describes, so there is never one without the other.
 */
export class SqliteOutbox {
  private readonly insert: Statement<[string, string, number, string, string]>;
  private readonly countPending: Statement<[], { n: number }>;

  constructor(private readonly db: Database) {
    this.insert = db.prepare('INSERT INTO outbox (id, stream, schema, ts, data_json) VALUES (?, ?, ?, ?, ?)');
    this.countPending = db.prepare('SELECT count(*) AS n FROM outbox');
  }

  append(stream: string, data: unknown, schema = 1, now = new Date()): OutboxRecord {
    const id = randomUUID();
    const ts = now.toISOString();
    const info = this.insert.run(id, stream, schema, ts, JSON.stringify(data));
    return { id, seq: Number(info.lastInsertRowid), stream, schema, ts, data };
  }

  pending(): number {
    return this.countPending.get()?.n ?? 0;
  }
}
