/**
 * Delays between attempts to get a lost device back: short at first so that a glitch costs
 * little, doubling up to a ceiling so that a device that stays unplugged does not spin the CPU.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly firstMs = 200,
    private readonly maxMs = 5_000,
  ) {}

  /** The delay before the next attempt; each call doubles the one after. */
  next(): number {
    const ms = Math.min(this.maxMs, this.firstMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return ms;
  }

  /** The device works again: the next loss starts from the short delay. */
  reset(): void {
    this.attempt = 0;
  }
}
