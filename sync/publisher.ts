import type { Logger } from 'pino';
import type { UpRecord } from './contract.js';
import type { Outbox } from './outbox.js';

/** How the publisher sends; the MQTT link implements it. */
export interface UpwardChannel {
  readonly connected: boolean;
  sendRecords(records: UpRecord[]): void;
}

export interface PublisherOptions {
  /** Records sent but not yet acknowledged, at most. */
  window: number;
  /** Records per batch message. */
  batchSize: number;
  /** Without ack progress for this long, everything unacknowledged is sent again. */
  ackTimeoutMs: number;
  /** How often the outbox is looked at for records written elsewhere (e.g. `lamp outbox-load`). */
  pollMs: number;
  /** Above this many pending records the queue is reported in health and logs. */
  warnPending: number;
}

export const DEFAULT_PUBLISHER: PublisherOptions = { window: 2000, batchSize: 200, ackTimeoutMs: 10_000, pollMs: 500, warnPending: 10_000 };

/**
 * Sends the outbox upward in seq order within a bounded window, and purges what the cloud
 * acknowledges. The outbox is the record of truth: after a reconnect or an ack timeout the
 * publisher simply starts again after the last acknowledged seq (the cloud de-duplicates by id);
 * mqtt.js's own queue is never relied on.
 */
export class Publisher {
  private lastSent = 0;
  private acked: number;
  private lastProgress = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private warned = false;
  sentRecords = 0;
  resends = 0;

  constructor(
    private readonly outbox: Outbox,
    private readonly channel: UpwardChannel,
    private readonly log: Logger,
    private readonly opts: PublisherOptions = DEFAULT_PUBLISHER,
  ) {
    this.acked = outbox.stats().acked_seq;
    this.lastSent = this.acked;
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), this.opts.pollMs);
    this.timer.unref();
    this.pump();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The link (re)connected: whatever was in flight may be lost; send again after the last ack. */
  onConnected(): void {
    if (this.lastSent > this.acked) this.resends++;
    this.lastSent = this.acked;
    this.lastProgress = Date.now();
    this.pump();
  }

  onAck(seq: number): void {
    if (seq <= this.acked) return;
    this.outbox.ack(seq);
    this.acked = this.outbox.stats().acked_seq;
    if (this.lastSent < this.acked) this.lastSent = this.acked;
    this.lastProgress = Date.now();
    this.pump();
  }

  /** New local records: send now rather than at the next poll. */
  pump(): void {
    while (this.channel.connected) {
      const room = this.opts.window - (this.lastSent - this.acked);
      if (room <= 0) return;
      const records = this.outbox.after(this.lastSent, Math.min(this.opts.batchSize, room));
      if (records.length === 0) return;
      this.channel.sendRecords(records);
      this.sentRecords += records.length;
      this.lastSent = (records[records.length - 1] as UpRecord).seq;
    }
  }

  private tick(): void {
    if (this.lastSent > this.acked && Date.now() - this.lastProgress > this.opts.ackTimeoutMs) {
      this.log.warn({ acked: this.acked, lastSent: this.lastSent }, 'no acknowledgement in time; sending again from the last acknowledged record');
      this.resends++;
      this.lastSent = this.acked;
      this.lastProgress = Date.now();
    }
    const pending = this.outbox.pending();
    if (pending > this.opts.warnPending && !this.warned) {
      this.warned = true;
      this.log.warn({ pending, limit: this.opts.warnPending }, 'the upward queue is long; nothing is dropped, it waits for the cloud');
    } else if (pending <= this.opts.warnPending) this.warned = false;
    this.pump();
  }

  health(): Record<string, unknown> {
    const s = this.outbox.stats();
    return { pending: s.pending, max_seq: s.max_seq, acked_seq: s.acked_seq, last_sent: this.lastSent, oldest_pending: s.oldest_ts, queue_long: s.pending > this.opts.warnPending, resends: this.resends };
  }
}
