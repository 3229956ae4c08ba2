/**
 * npm run bench:sync — through a real local mosquitto and the reference cloud:
 *  1. outbox write latency: one record per transaction, synchronous=FULL (p50/p99);
 *  2. records per second from outbox write to cumulative acknowledgement, with batching.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { CloudSimulator } from '../sync/cloud-sim.js';
import { openDatabase } from '../sync/db.js';
import { SqliteOutbox } from '../sync/outbox.js';
import { SyncService } from '../sync/service.js';
import { startBroker } from '../test/helpers/broker.js';

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] as number;
const N = Number(process.env.BENCH_RECORDS ?? 50_000);
const PER_TX = 100;

const broker = await startBroker();
const sim = new CloudSimulator(broker.url);
await sim.start();
const dir = mkdtempSync(path.join(tmpdir(), 'lamp-bench-sync-'));

// 1. single-record transactions
const writeDb = openDatabase(path.join(dir, 'write.db'));
const writeOutbox = new SqliteOutbox(writeDb);
const one = writeDb.transaction((i: number) => writeOutbox.append('event', { i, kind: 'bench', text: '床前明月光，疑是地上霜。' }));
const writeLat: number[] = [];
for (let i = 0; i < 3000; i++) {
  const t = performance.now();
  one(i);
  writeLat.push(performance.now() - t);
}
writeDb.close();

// 2. end to end, on a fresh lamp database (the cloud sees seq from 1)
const db = openDatabase(path.join(dir, 'lamp.db'));
const outbox = new SqliteOutbox(db);
const deviceId = 'lamp-bench';
const sync = new SyncService({
  db,
  outbox,
  link: { url: broker.url, deviceId, version: 'bench' },
  commands: { setConfig: () => 'not in a benchmark', addMaterials: () => {}, bundle: () => ({}), deliver: () => {} },
  log: pino({ level: 'silent' }),
});
await sync.start();
while (!(sync.health() as { connected: boolean }).connected) await new Promise((r) => setTimeout(r, 20));
const firstSeq = outbox.stats().max_seq + 1;
const many = db.transaction((from: number) => {
  for (let i = 0; i < PER_TX; i++) outbox.append('event', { i: from + i, kind: 'bench', text: '床前明月光，疑是地上霜。' });
});
const t0 = performance.now();
for (let i = 0; i < N; i += PER_TX) {
  many(i);
  sync.pump();
  if (i % 2000 === 0) await new Promise((r) => setImmediate(r)); // let acks in while writing
}
const lastSeq = firstSeq + N - 1;
while (outbox.stats().acked_seq < lastSeq) await new Promise((r) => setTimeout(r, 5));
const seconds = (performance.now() - t0) / 1000;

await sync.stop();
await sim.stop();
await broker.stop();
db.close();

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, mosquitto on loopback`);
console.log(`outbox write, one record per transaction (synchronous=FULL): p50 ${pct(writeLat, 50).toFixed(3)} ms, p99 ${pct(writeLat, 99).toFixed(3)} ms`);
console.log(`write → cumulative ack, ${N} records (${PER_TX} per transaction, batches of 200): ${Math.round(N / seconds)} records/s (${seconds.toFixed(2)} s)`);
console.log(JSON.stringify({ bench: 'sync', write_p50_ms: pct(writeLat, 50), write_p99_ms: pct(writeLat, 99), records_per_second: Math.round(N / seconds), records: N }));
