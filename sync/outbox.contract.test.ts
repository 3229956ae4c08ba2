import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers/app.js';
import { openDatabase } from './db.js';
import { MemoryOutbox, type Outbox, SqliteOutbox } from './outbox.js';

/** The outbox contract: every implementation must pass all of it. */
const implementations: [string, () => Outbox][] = [
  ['SqliteOutbox', () => new SqliteOutbox(openDatabase(path.join(tempDir(), 'lamp.db')))],
  ['MemoryOutbox', () => new MemoryOutbox()],
];

describe.each(implementations)('%s (outbox contract)', (_name, make) => {
  it('numbers records from 1, gap-free, in order', () => {
    const o = make();
    const seqs = [1, 2, 3, 4, 5].map((n) => o.append('event', { n }).seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(o.after(0, 10).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(o.after(2, 2).map((r) => (r.data as { n: number }).n)).toEqual([3, 4]);
  });

  it('returns records in the wire shape with unique ids', () => {
    const o = make();
    o.append('recitation_history', { a: 1 }, 2, new Date('2026-11-22T10:00:00Z'));
    o.append('event', { b: 2 });
    const [r, s] = o.after(0, 10);
    expect(r).toMatchObject({ seq: 1, stream: 'recitation_history', schema: 2, ts: '2026-11-22T10:00:00.000Z', data: { a: 1 } });
    expect(r?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r?.id).not.toBe(s?.id);
  });

  it('an ack purges up to its seq, cumulatively, never backwards, and never past what exists', () => {
    const o = make();
    for (let i = 0; i < 6; i++) o.append('event', { i });
    o.ack(3);
    expect(o.after(0, 10).map((r) => r.seq)).toEqual([4, 5, 6]);
    o.ack(2); // an old, repeated ack changes nothing
    expect(o.stats()).toMatchObject({ pending: 3, acked_seq: 3, max_seq: 6 });
    o.ack(100);
    expect(o.stats()).toMatchObject({ pending: 0, acked_seq: 6, max_seq: 6 });
  });

  it('seq is never reused after everything was acknowledged', () => {
    const o = make();
    o.append('event', {});
    o.append('event', {});
    o.ack(2);
    expect(o.append('event', {}).seq).toBe(3);
  });
});
