import { ErrorCode, LampError } from '../../runtime/errors.js';
import { Listeners } from '../device.js';
import type { Button } from './button.js';

/** Simulated push-to-talk button, pressed by tests and by the simulator page. */
export class SimButton implements Button {
  readonly kind = 'button' as const;
  readonly binding = 'simulator';
  private readonly presses = new Listeners<void>();
  private opened = false;
  pressed = 0;

  async open(): Promise<void> {
    this.opened = true;
  }

  async close(): Promise<void> {
    this.opened = false;
  }

  onPress(fn: () => void): () => void {
    return this.presses.add(fn);
  }

  /** Test and simulator control: one press. */
  press(): void {
    if (!this.opened) throw new LampError(ErrorCode.DRIVER_CLOSED, 'button is not open');
    this.pressed++;
    this.presses.emit();
  }

  health(): Record<string, unknown> {
    return { binding: this.binding, open: this.opened, presses: this.pressed, consumers: this.presses.size };
  }
}
