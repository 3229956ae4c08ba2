import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { UpRecord } from './contract.js';
import { MemoryOutbox } from './outbox.js';
import { Publisher } from './publisher.js';

function channel() {
  const sent: UpRecord[][] = [];
  return { connected: true, sent, sendRecords: (r: UpRecord[]) => void sent.push(r), seqs: () => sent.flat().map((r) => r.seq) };
}

const log = pino({ level: 'silent' });

describe('Publisher (logic, over the in-memory outbox)', () => {
  it('sends in seq order, in batches, never more than the window unacknowledged', () => {
    const outbox = new MemoryOutbox();
    for (let i = 0; i < 25; i++) outbox.append('event', { i });
    const ch = channel();
    const p = new Publisher(outbox, ch, log, { window: 10, batchSize: 4, ackTimeoutMs: 1000, pollMs: 10_000, warnPending: 100 });
    p.pump();
    expect(ch.sent.map((b) => b.length)).toEqual([4, 4, 2]);
    expect(ch.seqs()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    p.onAck(6);
    expect(outbox.stats()).toMatchObject({ acked_seq: 6, pending: 19 });
    expect(ch.seqs().slice(10)).toEqual([11, 12, 13, 14, 15, 16]);
  });

  it('after a reconnect it starts again after the last acknowledged record', () => {
    const outbox = new MemoryOutbox();
    for (let i = 0; i < 6; i++) outbox.append('event', { i });
    const ch = channel();
    const p = new Publisher(outbox, ch, log, { window: 100, batchSize: 100, ackTimeoutMs: 1000, pollMs: 10_000, warnPending: 100 });
    p.pump();
    p.onAck(2);
    ch.sent.length = 0;
    p.onConnected();
    expect(ch.seqs()).toEqual([3, 4, 5, 6]);
  });

  it('without ack progress for the timeout it sends again; a long queue is reported, nothing dropped', () => {
    vi.useFakeTimers();
    try {
      const outbox = new MemoryOutbox();
      for (let i = 0; i < 5; i++) outbox.append('event', { i });
      const ch = channel();
      const warn = vi.fn();
      const p = new Publisher(outbox, ch, { ...log, warn } as unknown as typeof log, { window: 100, batchSize: 100, ackTimeoutMs: 1000, pollMs: 100, warnPending: 3 });
      p.start();
      expect(ch.seqs()).toEqual([1, 2, 3, 4, 5]);
      vi.advanceTimersByTime(1200);
      expect(ch.seqs()).toEqual([1, 2, 3, 4, 5, 1, 2, 3, 4, 5]);
      expect(p.health()).toMatchObject({ queue_long: true, pending: 5 });
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ pending: 5 }), expect.stringContaining('nothing is dropped'));
      p.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not send while disconnected', () => {
    const outbox = new MemoryOutbox();
    outbox.append('event', {});
    const ch = { ...channel(), connected: false };
    new Publisher(outbox, ch, log).pump();
    expect(ch.sent).toEqual([]);
  });
});
