import { setTimeout as sleep } from 'node:timers/promises';
import { databasePath, openDatabase } from '../../sync/db.js';
import { SqliteOutbox } from '../../sync/outbox.js';
import type { LampConfig } from '../config/schema.js';

/**
 * `lamp outbox-load --count N [--rate R]`: writes N synthetic `event` records through the same
 * outbox path as the lamp (one transaction each, synchronous=FULL). It may run beside a running
 * lamp on the same data directory; the lamp's publisher picks the records up within a second.
 */
export async function outboxLoadCommand(config: LampConfig, count: number, rate: number | undefined): Promise<number> {
  if (!Number.isInteger(count) || count < 1) {
    console.error('lamp outbox-load: --count must be a whole number ≥ 1');
    return 64;
  }
  const db = openDatabase(databasePath(config.dataDir));
  const outbox = new SqliteOutbox(db);
  const write = db.transaction((n: number) => outbox.append('event', { kind: 'outbox-load', n }));
  const t0 = performance.now();
  let first = 0;
  let last = 0;
  for (let n = 1; n <= count; n++) {
    const rec = write(n);
    if (n === 1) first = rec.seq;
    last = rec.seq;
    if (rate) {
      const due = t0 + (n / rate) * 1000;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
    }
  }
  const s = (performance.now() - t0) / 1000;
  db.close();
  console.log(JSON.stringify({ written: count, first_seq: first, last_seq: last, seconds: Math.round(s * 1000) / 1000, per_second: Math.round(count / s) }));
  return 0;
}
