import type { Drivers } from '../../drivers/index.js';
import type { ServoMove } from '../../drivers/servo/servo.js';
import type { Effect } from '../../scenes/types.js';
import type { EventBus } from '../bus.js';
import type { LampEvents } from '../events.js';
import type { Logger } from '../log.js';
import type { EffectRunner } from './pipeline.js';

const GESTURES: Record<Extract<Effect, { type: 'servo_gesture' }>['gesture'], ServoMove[]> = {
  nod: [
    { joint: 1, angle: 75, durationMs: 200 },
    { joint: 1, angle: 90, durationMs: 200 },
  ],
  shake: [
    { joint: 0, angle: 75, durationMs: 200 },
    { joint: 0, angle: 105, durationMs: 300 },
    { joint: 0, angle: 90, durationMs: 200 },
  ],
  wave: [
    { joint: 2, angle: 60, durationMs: 250 },
    { joint: 2, angle: 120, durationMs: 250 },
    { joint: 2, angle: 90, durationMs: 250 },
  ],
  rest: [
    { joint: 0, angle: 90, durationMs: 400 },
    { joint: 1, angle: 90, durationMs: 400 },
    { joint: 2, angle: 90, durationMs: 400 },
  ],
};

/**
 * Executes a turn's outward effects. A failing device is logged and does not stop the other
 * effects: a broken servo must not keep the child from hearing the answer.
 */
export interface EffectHandlers {
  /** capture_page: take a photo after the delay and hand it in as an image turn. */
  capturePage?: (delayMs: number) => void;
  /** cloud_call: ask the cloud; the answer comes back as a result turn (or is queued offline). */
  cloudCall?: (effect: Extract<Effect, { type: 'cloud_call' }>, log: Logger) => Promise<void>;
}

export function createEffectRunner(drivers: Drivers, bus: EventBus<LampEvents>, handlers: EffectHandlers = {}): EffectRunner {
  return async (effects, { traceId, log }) => {
    for (const effect of effects) {
      try {
        switch (effect.type) {
          case 'speak':
            bus.emit('speech', { traceId, text: effect.text });
            break;
          case 'show_card':
            await drivers.projector?.show(effect.card);
            break;
          case 'servo_gesture':
            await drivers.servo?.move(GESTURES[effect.gesture]);
            break;
          case 'capture_page':
            handlers.capturePage?.(effect.delayMs);
            break;
          case 'cloud_call':
            // Not awaited: the child hears the answer now; the cloud's comes later as its own turn.
            handlers.cloudCall?.(effect, log).catch((err: unknown) => log.warn({ err }, 'cloud call failed'));
            break;
          case 'persist':
          case 'learning_record':
            // written inside the turn's transaction
            break;
        }
      } catch (err) {
        log.warn({ err, effect: effect.type }, 'effect failed');
      }
    }
  };
}
