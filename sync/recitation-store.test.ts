import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinLibrary } from '../scenes/recite/library.js';
import type { RecitationError } from '../scenes/recite/score.js';
import { tempDir } from '../test/helpers/app.js';
import { openDatabase } from './db.js';
import { SqliteOutbox } from './outbox.js';
import { type RecitationAttempt, RecitationStore } from './recitation-store.js';

const library = builtinLibrary();
const U = 'default';

function storeAt(file: string): { store: RecitationStore; db: ReturnType<typeof openDatabase> } {
  const db = openDatabase(file);
  return { db, store: new RecitationStore(db, new SqliteOutbox(db), library) };
}

function attempt(at: string, accuracy: number, errors: Partial<RecitationError>[] = [], tip: string | null = null): RecitationAttempt {
  const errs = errors.map((e) => ({ type: 'omission', sentence: 1, char: 1, expected: '', actual: '', position: '第1句第1字', ...e }) as RecitationError);
  return {
    material_id: 'jing-ye-si',
    expected: '床前明月光',
    recited: '床前',
    accuracy,
    need_retry: accuracy < 85,
    errors: errs,
    is_review: false,
    duration_ms: 5000,
    at,
    pattern_updates: errs.map((e) => ({ error_type: e.type, content: e.type === 'insertion' ? e.actual : e.expected, tip })),
    schedule: null,
  };
}

describe('RecitationStore', () => {
  it('the same slip in a slightly different context is the same pattern', () => {
    const { db, store } = storeAt(path.join(tempDir(), 'lamp.db'));
    const tx = (a: RecitationAttempt): void => db.transaction(() => store.record(U, a, new Date(a.at)))();
    tx(attempt('2026-11-22T08:00:00.000Z', 75, [{ type: 'omission', expected: '举头望明月' }]));
    tx(attempt('2026-11-22T08:05:00.000Z', 85, [{ type: 'omission', expected: '望明月' }]));
    tx(attempt('2026-11-22T08:06:00.000Z', 95, [{ type: 'wrong_word', expected: '思' }]));
    tx(attempt('2026-11-22T08:07:00.000Z', 100, [{ type: 'insertion', actual: '啊' }]));
    const rows = db.prepare('SELECT error_type, content, occurrence_count FROM recitation_error_pattern ORDER BY id').all();
    expect(rows).toEqual([
      { error_type: 'omission', content: '举头望明月', occurrence_count: 2 },
      { error_type: 'wrong_word', content: '思', occurrence_count: 1 },
      { error_type: 'insertion', content: '啊', occurrence_count: 1 },
    ]);
  });

  it('a tip is stored once and never replaced by a later one', () => {
    const { db, store } = storeAt(path.join(tempDir(), 'lamp.db'));
    const tx = (a: RecitationAttempt): void => db.transaction(() => store.record(U, a, new Date(a.at)))();
    tx(attempt('2026-11-22T08:00:00.000Z', 90, [{ type: 'wrong_word', expected: '思' }]));
    tx(attempt('2026-11-22T08:01:00.000Z', 90, [{ type: 'wrong_word', expected: '思' }], 'first tip'));
    tx(attempt('2026-11-22T08:02:00.000Z', 90, [{ type: 'wrong_word', expected: '思' }], 'second tip'));
    expect(db.prepare('SELECT occurrence_count, memory_tip, tip_source FROM recitation_error_pattern').get()).toEqual({ occurrence_count: 3, memory_tip: 'first tip', tip_source: 'local' });
  });

  it('concurrent writers (two connections, stale reads) do not lose counts', () => {
    const file = path.join(tempDir(), 'lamp.db');
    const a = storeAt(file);
    const b = storeAt(file);
    const slip = [{ type: 'mispronounced' as const, expected: '闻' }];
    for (let i = 0; i < 20; i++) {
      const who = i % 2 === 0 ? a : b;
      const at = new Date(Date.UTC(2026, 10, 22, 8, i)).toISOString();
      who.db.transaction(() => who.store.record(U, attempt(at, 90, slip), new Date(at))).immediate();
    }
    expect(a.db.prepare('SELECT count(*) AS n, sum(occurrence_count) AS total FROM recitation_error_pattern').get()).toEqual({ n: 1, total: 20 });
    expect(a.db.prepare('SELECT count(*) AS n FROM recitation_history').get()).toEqual({ n: 20 });
  });

  it('reports: one row per user, period and start; regenerating updates it; the wording is local offline', () => {
    const { db, store } = storeAt(path.join(tempDir(), 'lamp.db'));
    const tx = (a: RecitationAttempt): void => db.transaction(() => store.record(U, a, new Date(a.at)))();
    const noon = new Date(2026, 10, 18, 12, 0); // a Wednesday, local time
    tx(attempt(noon.toISOString(), 80, [{ type: 'omission', expected: '疑是地上霜' }]));
    tx(attempt(new Date(noon.getTime() + 60_000).toISOString(), 100));
    const again = db.transaction(() => store.report(U, 'day', '2026-11-18', new Date()))();
    expect(again).toMatchObject({ attempts: 2, avg_accuracy: 90, materials: 1 });
    expect(again.wording).toContain('平均 90 分');
    expect(again.wording).toContain('疑是地上霜');
    const rows = db.prepare('SELECT period, period_start, attempts, wording_source FROM recitation_report ORDER BY period').all();
    expect(rows).toEqual([
      { period: 'day', period_start: '2026-11-18', attempts: 2, wording_source: 'local' },
      { period: 'week', period_start: '2026-11-16', attempts: 2, wording_source: 'local' },
    ]);
  });

  it('finished periods worded locally are offered for cloud wording, which replaces them once and is queued', () => {
    const { db, store } = storeAt(path.join(tempDir(), 'lamp.db'));
    db.transaction(() => store.record(U, attempt(new Date(2026, 10, 18, 12).toISOString(), 90), new Date()))();
    expect(store.localReports('2026-11-18', 10)).toEqual([]); // the day itself is not finished yet
    expect(store.localReports('2026-11-22', 10).map((r) => `${r.period} ${r.period_start}`)).toEqual(['day 2026-11-18']); // the week runs to Sunday the 22nd
    expect(store.localReports('2026-11-23', 10).map((r) => `${r.period} ${r.period_start}`)).toEqual(['day 2026-11-18', 'week 2026-11-16']);
    store.setCloudWording(U, 'day', '2026-11-18', 'cloud words', new Date());
    store.setCloudWording(U, 'day', '2026-11-18', 'later words', new Date());
    expect(db.prepare("SELECT wording, wording_source FROM recitation_report WHERE period = 'day'").get()).toEqual({ wording: 'cloud words', wording_source: 'cloud' });
    const last = db.prepare("SELECT data_json FROM outbox WHERE stream = 'report' ORDER BY seq DESC LIMIT 1").get() as { data_json: string };
    expect(JSON.parse(last.data_json)).toMatchObject({ wording: 'cloud words', wording_source: 'cloud', period: 'day' });
  });

  it('due reviews come earliest first', () => {
    const { db, store } = storeAt(path.join(tempDir(), 'lamp.db'));
    const put = db.prepare('INSERT INTO recitation_review_schedule VALUES (?, ?, 0, ?, ?, 90, ?)');
    put.run(U, 'chun-xiao', '2026-11-22T09:00:00.000Z', 't', 't');
    put.run(U, 'jing-ye-si', '2026-11-22T07:00:00.000Z', 't', 't');
    put.run(U, 'yong-e', '2026-11-25T07:00:00.000Z', 't', 't');
    expect(store.due(U, '2026-11-22T10:00:00.000Z').map((r) => r.material_id)).toEqual(['jing-ye-si', 'chun-xiao']);
  });
});
