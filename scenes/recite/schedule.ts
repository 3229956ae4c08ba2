/**
 * Spaced review. A material enters the schedule when it is first passed (≥ 85 %); reviews fall
 * after 1, 2, 4, 7, 15 and 30 days. A passed review moves one step longer; a failed review, or
 * one that dropped by 10 points or more from the last, moves one step shorter.
 * All times come from the lamp's monotonic clock (see docs/recitation.md): a clock that jumps
 * backwards after a power loss can never move a due date earlier than it was.
 */
export const INTERVAL_DAYS = [1, 2, 4, 7, 15, 30] as const;
const DAY = 86_400_000;
const DROP_POINTS = 10;

export interface ReviewEntry {
  material_id: string;
  step: number;
  due_at: string;
  last_review_at: string;
  last_accuracy: number;
  created_at: string;
}

export interface AttemptOutcome {
  material_id: string;
  accuracy: number;
  passed: boolean;
  at: string;
}

function dueFrom(at: string, step: number): string {
  return new Date(Date.parse(at) + (INTERVAL_DAYS[step] as number) * DAY).toISOString();
}

/** Whether an attempt at this time counts as a review of a scheduled material. */
export function isReview(entry: ReviewEntry | undefined, at: string): boolean {
  return entry !== undefined && Date.parse(entry.due_at) <= Date.parse(at);
}

/** The schedule entry after an attempt; undefined when the material is not (yet) scheduled. */
export function nextSchedule(entry: ReviewEntry | undefined, attempt: AttemptOutcome): ReviewEntry | undefined {
  if (!entry) {
    if (!attempt.passed) return undefined;
    return { material_id: attempt.material_id, step: 0, due_at: dueFrom(attempt.at, 0), last_review_at: attempt.at, last_accuracy: attempt.accuracy, created_at: attempt.at };
  }
  if (!isReview(entry, attempt.at)) return entry; // practice between reviews does not move the schedule
  const dropped = attempt.accuracy <= entry.last_accuracy - DROP_POINTS;
  const step = attempt.passed && !dropped ? Math.min(entry.step + 1, INTERVAL_DAYS.length - 1) : Math.max(entry.step - 1, 0);
  return { ...entry, step, due_at: dueFrom(attempt.at, step), last_review_at: attempt.at, last_accuracy: attempt.accuracy };
}
