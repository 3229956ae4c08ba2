import type { Device } from '../device.js';

/** The push-to-talk button: a press starts listening without the wake word. */
export interface Button extends Device {
  readonly kind: 'button';
  /** Called once per press (not on release, not on key repeat); returns the function that removes it. */
  onPress(fn: () => void): () => void;
}
