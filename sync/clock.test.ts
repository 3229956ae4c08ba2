import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers/app.js';
import { MonotonicClock } from './clock.js';
import { openDatabase } from './db.js';

const H = 3_600_000;

describe('MonotonicClock', () => {
  it('never goes back across restarts when the wall clock jumps backwards, and keeps advancing meanwhile', () => {
    const file = path.join(tempDir(), 'lamp.db');
    let wall = Date.parse('2026-11-22T10:00:00Z');
    let mono = 0;
    let db = openDatabase(file);
    let clock = new MonotonicClock(db, () => wall, () => mono);
    const t1 = clock.now();
    clock.observe(t1);
    db.close();

    wall = Date.parse('2000-01-01T00:00:00Z'); // power loss: the board's clock came back in the past
    mono = 1000;
    db = openDatabase(file);
    clock = new MonotonicClock(db, () => wall, () => mono);
    expect(clock.wallIsBehind).toBe(true);
    expect(clock.now().toISOString()).toBe(t1.toISOString());
    mono += 2 * H; // two hours pass; the wall clock is still wrong
    wall += 2 * H;
    expect(clock.now().getTime()).toBe(t1.getTime() + 2 * H);

    wall = Date.parse('2026-11-23T08:00:00Z'); // network time is back
    expect(clock.wallIsBehind).toBe(false);
    expect(clock.now().toISOString()).toBe('2026-11-23T08:00:00.000Z');
    db.close();
  });

  it('a forward jump corrected by network time does not freeze or reverse it', () => {
    const db = openDatabase(path.join(tempDir(), 'lamp.db'));
    let wall = Date.parse('2030-01-01T00:00:00Z'); // wrongly far ahead
    let mono = 0;
    const clock = new MonotonicClock(db, () => wall, () => mono);
    const ahead = clock.now().getTime();
    wall = Date.parse('2026-11-22T10:00:00Z'); // corrected
    mono += 60_000;
    expect(clock.now().getTime()).toBe(ahead + 60_000);
    db.close();
  });
});
