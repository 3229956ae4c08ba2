import { describe, expect, it } from 'vitest';
import { INTERVAL_DAYS, type ReviewEntry, isReview, nextSchedule } from './schedule.js';

const DAY = 86_400_000;
const T0 = '2026-11-01T08:00:00.000Z';
const at = (days: number): string => new Date(Date.parse(T0) + days * DAY).toISOString();
const attempt = (accuracy: number, when: string) => ({ material_id: 'jing-ye-si', accuracy, passed: accuracy >= 85, at: when });

describe('review schedule', () => {
  it('a material is scheduled when first passed, due one day later', () => {
    expect(nextSchedule(undefined, attempt(70, T0))).toBeUndefined();
    expect(nextSchedule(undefined, attempt(90, T0))).toEqual({ material_id: 'jing-ye-si', step: 0, due_at: at(1), last_review_at: T0, last_accuracy: 90, created_at: T0 });
  });

  it('passed reviews walk 1, 2, 4, 7, 15, 30 days and stay at 30', () => {
    let e = nextSchedule(undefined, attempt(90, T0)) as ReviewEntry;
    let now = T0;
    const gaps: number[] = [];
    for (let i = 0; i < 7; i++) {
      now = e.due_at;
      e = nextSchedule(e, attempt(95, now)) as ReviewEntry;
      gaps.push((Date.parse(e.due_at) - Date.parse(now)) / DAY);
    }
    expect(gaps).toEqual([2, 4, 7, 15, 30, 30, 30]);
    expect(INTERVAL_DAYS).toEqual([1, 2, 4, 7, 15, 30]);
  });

  it('a failed review moves one step shorter; a dropping one too', () => {
    const e: ReviewEntry = { material_id: 'jing-ye-si', step: 3, due_at: at(10), last_review_at: at(3), last_accuracy: 100, created_at: T0 };
    expect(nextSchedule(e, attempt(60, at(10)))).toMatchObject({ step: 2, due_at: at(14), last_accuracy: 60 });
    expect(nextSchedule(e, attempt(88, at(10)))).toMatchObject({ step: 2 }); // passed, but 12 points down
    expect(nextSchedule(e, attempt(95, at(10)))).toMatchObject({ step: 4 });
    expect(nextSchedule({ ...e, step: 0 }, attempt(10, at(10)))).toMatchObject({ step: 0 });
  });

  it('practice before the review is due does not move the schedule', () => {
    const e: ReviewEntry = { material_id: 'jing-ye-si', step: 2, due_at: at(10), last_review_at: at(3), last_accuracy: 100, created_at: T0 };
    expect(isReview(e, at(5))).toBe(false);
    expect(nextSchedule(e, attempt(40, at(5)))).toBe(e);
    expect(isReview(e, at(10))).toBe(true);
  });
});
