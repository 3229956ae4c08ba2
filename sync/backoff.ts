/** Capped exponential back-off with full jitter in [delay/2, delay]. */
export function backoffDelay(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const delay = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(delay / 2 + (random() * delay) / 2);
}
