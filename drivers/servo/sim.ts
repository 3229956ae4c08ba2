import { ErrorCode, LampError } from '../../runtime/errors.js';
import { type Servo, type ServoMove, clampAngle } from './servo.js';

/** Simulated servo arm: records every commanded position; tests read `history`. */
export class SimServo implements Servo {
  readonly kind = 'servo' as const;
  readonly binding = 'simulator';
  readonly history: (ServoMove & { at: number })[] = [];
  private readonly current = new Map<number, number>();
  private opened = false;

  async open(): Promise<void> {
    this.opened = true;
  }

  async close(): Promise<void> {
    this.opened = false;
  }

  async move(moves: readonly ServoMove[]): Promise<void> {
    if (!this.opened) throw new LampError(ErrorCode.DRIVER_CLOSED, 'servo is not open');
    for (const m of moves) {
      const angle = clampAngle(m.angle);
      this.current.set(m.joint, angle);
      this.history.push({ ...m, angle, at: Date.now() });
    }
  }

  positions(): ReadonlyMap<number, number> {
    return this.current;
  }

  health(): Record<string, unknown> {
    return { binding: this.binding, open: this.opened, positions: Object.fromEntries(this.current) };
  }
}
