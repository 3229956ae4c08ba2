import type { ResponseEnvelope } from './turn/response.js';

/** Every event on the runtime's bus, keyed by name. */
export interface LampEvents {
  'turn.completed': { envelope: ResponseEnvelope; source: string };
  /** Text the lamp says; the voice path turns it into audio, the page shows it as a speech bubble. */
  speech: { traceId: string; text: string };
  /** What the child is saying, as the recogniser hears it (final: the text handed to the turn). */
  'voice.partial': { text: string; final?: boolean };
  /** The voice path's state: idle, listening, hearing, thinking, speaking. */
  'voice.state': { state: string; reason?: string };
  /** The lamp is stopping; components finish what they are doing. */
  'lamp.stopping': Record<string, never>;
}
