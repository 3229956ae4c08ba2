import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { UpRecord } from './contract.js';

export interface OutboxRecord {
  id: string;
  seq: number;
  stream: string;
  schema: number;
  ts: string;
  data: unknown;
}

export interface OutboxStats {
  pending: number;
  /** Highest seq ever written (0 when none). */
  max_seq: number;
  /** Highest seq the cloud has acknowledged. */
  acked_seq: number;
  oldest_ts: string | null;
}

/**
 * The outbox port: upward records waiting for the cloud. Every implementation passes the
 * contract suite in outbox.contract.ts.
 */
export interface Outbox {
  /** Call inside the transaction that writes the learning data the record describes. */
  append(stream: string, data: unknown, schema?: number, now?: Date): OutboxRecord;
  /** Up to `limit` unacknowledged records after `seq`, in seq order. */
  after(seq: number, limit: number): UpRecord[];
  /** Everything up to `seq` is stored by the cloud: purge it. Never moves backwards. */
  ack(seq: number): void;
  stats(): OutboxStats;
  pending(): number;
}

interface Row {
  seq: number;
  id: string;
  stream: string;
  schema: number;
  ts: string;
  data_json: string;
}

const ACKED_KEY = 'outbox_acked_seq';

/**
 * The SQLite outbox. seq is the table's AUTOINCREMENT key: gap-free within committed
 * transactions (a rolled-back append rolls back its number too) and never reused, even after
 * acknowledged rows are purged or the file is vacuumed.
 */
export class SqliteOutbox implements Outbox {
  private readonly insert: Statement<[string, string, number, string, string]>;
  private readonly countPending: Statement<[], { n: number; oldest: string | null }>;
  private readonly afterStmt: Statement<[number, number], Row>;
  private readonly purge: Statement<[number]>;
  private readonly maxSeqStmt: Statement<[], { seq: number }>;
  private readonly getAcked: Statement<[string], { value: string }>;
  private readonly setAcked: Statement<[string, string, string]>;

  constructor(private readonly db: Database) {
    this.insert = db.prepare('INSERT INTO outbox (id, stream, schema, ts, data_json) VALUES (?, ?, ?, ?, ?)');
    this.countPending = db.prepare('SELECT count(*) AS n, min(ts) AS oldest FROM outbox');
    this.afterStmt = db.prepare('SELECT seq, id, stream, schema, ts, data_json FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?');
    this.purge = db.prepare('DELETE FROM outbox WHERE seq <= ?');
    this.maxSeqStmt = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'");
    this.getAcked = db.prepare('SELECT value FROM meta WHERE key = ?');
    this.setAcked = db.prepare('INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at');
  }

  append(stream: string, data: unknown, schema = 1, now = new Date()): OutboxRecord {
    const id = randomUUID();
    const ts = now.toISOString();
    const info = this.insert.run(id, stream, schema, ts, JSON.stringify(data));
    return { id, seq: Number(info.lastInsertRowid), stream, schema, ts, data };
  }

  after(seq: number, limit: number): UpRecord[] {
    return this.afterStmt.all(seq, limit).map((r) => ({ id: r.id, seq: r.seq, stream: r.stream as UpRecord['stream'], schema: r.schema, ts: r.ts, data: JSON.parse(r.data_json) as Record<string, unknown> }));
  }

  ack(seq: number): void {
    this.db.transaction(() => {
      const acked = this.ackedSeq();
      if (seq <= acked) return;
      // The cloud cannot acknowledge what was never written; clamp a confused ack.
      const upTo = Math.min(seq, this.maxSeqStmt.get()?.seq ?? 0);
      this.purge.run(upTo);
      this.setAcked.run(ACKED_KEY, String(upTo), new Date().toISOString());
    })();
  }

  private ackedSeq(): number {
    return Number(this.getAcked.get(ACKED_KEY)?.value ?? 0);
  }

  stats(): OutboxStats {
    const c = this.countPending.get() ?? { n: 0, oldest: null };
    return { pending: c.n, max_seq: this.maxSeqStmt.get()?.seq ?? 0, acked_seq: this.ackedSeq(), oldest_ts: c.oldest };
  }

  pending(): number {
    return this.countPending.get()?.n ?? 0;
  }
}

/** An in-memory outbox with the same contract, for tests of the publisher's logic alone. */
export class MemoryOutbox implements Outbox {
  private records: UpRecord[] = [];
  private maxSeq = 0;
  private acked = 0;

  append(stream: string, data: unknown, schema = 1, now = new Date()): OutboxRecord {
    const r = { id: randomUUID(), seq: ++this.maxSeq, stream: stream as UpRecord['stream'], schema, ts: now.toISOString(), data: data as Record<string, unknown> };
    this.records.push(structuredClone(r));
    return r;
  }

  after(seq: number, limit: number): UpRecord[] {
    return this.records.filter((r) => r.seq > seq).slice(0, limit).map((r) => structuredClone(r));
  }

  ack(seq: number): void {
    if (seq <= this.acked) return;
    this.acked = Math.min(seq, this.maxSeq);
    this.records = this.records.filter((r) => r.seq > this.acked);
  }

  stats(): OutboxStats {
    return { pending: this.records.length, max_seq: this.maxSeq, acked_seq: this.acked, oldest_ts: this.records[0]?.ts ?? null };
  }

  pending(): number {
    return this.records.length;
  }
}
