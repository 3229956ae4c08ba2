import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers/app.js';
import { MonotonicClock } from './clock.js';
import { openDatabase } from './db.js';

describe('MonotonicClock', () => {
  it('never goes back, across restarts, when the wall clock jumps backwards', () => {
    const file = path.join(tempDir(), 'lamp.db');
    let wall = Date.parse('2026-11-22T10:00:00Z');
    let db = openDatabase(file);
    let clock = new MonotonicClock(db, () => wall);
    const t1 = clock.now();
    clock.observe(t1);
    db.close();

    wall = Date.parse('2000-01-01T00:00:00Z'); // power loss: the RTC came back at the epoch of its battery
    db = openDatabase(file);
    clock = new MonotonicClock(db, () => wall);
    expect(clock.wallIsBehind).toBe(true);
    expect(clock.now().toISOString()).toBe(t1.toISOString());

    wall = Date.parse('2026-11-23T08:00:00Z'); // network time is back
    expect(clock.wallIsBehind).toBe(false);
    expect(clock.now().toISOString()).toBe('2026-11-23T08:00:00.000Z');
    db.close();
  });
});
