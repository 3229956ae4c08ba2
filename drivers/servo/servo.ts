import type { Device } from '../device.js';

export interface ServoMove {
  joint: number;
  /** Degrees, clamped to the joint's range by the driver. */
  angle: number;
  /** How long the move should take. */
  durationMs: number;
}

export interface Servo extends Device {
  readonly kind: 'servo';
  move(moves: readonly ServoMove[]): Promise<void>;
  positions(): ReadonlyMap<number, number>;
}

export const SERVO_RANGE = { min: 0, max: 180 } as const;

export function clampAngle(angle: number): number {
  return Math.min(SERVO_RANGE.max, Math.max(SERVO_RANGE.min, angle));
}
