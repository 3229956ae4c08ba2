import type { Database, Statement } from 'better-sqlite3';

const KEY = 'clock_high_water';

/**
 * The lamp's clock for learning data: never earlier than the latest time it has already used.
 * After a power loss without network the board's wall clock may come back in the past; the lamp
 * then carries on from the high-water mark, advancing with the real elapsed (monotonic) time,
 * until the wall clock has caught up. So schedules, histories and reports never go backwards,
 * and time never stands still. The mark is saved inside each turn's transaction.
 */
export class MonotonicClock {
  private highWater: number;
  private last: number;
  private lastMono: number;
  private readonly save: Statement<[string, string, string]>;

  constructor(
    db: Database,
    private readonly wall: () => number = Date.now,
    private readonly mono: () => number = () => performance.now(),
  ) {
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(KEY) as { value: string } | undefined;
    this.highWater = row ? Date.parse(row.value) || 0 : 0;
    this.last = Math.max(this.wall(), this.highWater);
    this.lastMono = this.mono();
    this.save = db.prepare('INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at');
  }

  now(): Date {
    const m = this.mono();
    const t = Math.max(this.wall(), this.last + (m - this.lastMono));
    this.last = t;
    this.lastMono = m;
    return new Date(t);
  }

  /** Whether the wall clock is behind what the lamp has already used. */
  get wallIsBehind(): boolean {
    return this.wall() < this.highWater;
  }

  /** Records a time that was used (call inside the transaction that used it). */
  observe(at: Date): void {
    const t = at.getTime();
    if (t <= this.highWater) return;
    this.highWater = t;
    const iso = at.toISOString();
    this.save.run(KEY, iso, iso);
  }
}
