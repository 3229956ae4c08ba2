/**
 * The scene contract. A scene is a pure step function `(state, event) → {state, effects}`:
 * it never opens a socket, device or file. The runtime executes the effects, so every scene is
 * testable without hardware or network.
 */

export type SceneName = 'chat' | 'recite' | 'homework';

export type Intent = 'chat' | 'recite' | 'homework' | 'continue_current' | 'exit_current';
export type Confidence = 'HIGH' | 'MID' | 'LOW';

export interface Slots {
  material?: string;
  subject?: string;
}

/** A card for the projector (and the simulator page). */
export interface Card {
  kind: string;
  title?: string;
  lines?: string[];
  [key: string]: unknown;
}

export type Effect =
  | { type: 'speak'; text: string }
  | { type: 'show_card'; card: Card }
  | { type: 'servo_gesture'; gesture: 'nod' | 'shake' | 'wave' | 'rest' }
  /** An upward record, written in the same transaction as the turn's state. */
  | { type: 'persist'; stream: string; data: Record<string, unknown> }
  /** Learning data for the runtime to store in the turn's transaction (and queue upward). */
  | { type: 'learning_record'; kind: 'recitation_attempt' | 'homework_check'; data: Record<string, unknown> }
  /** A cloud request; the answer comes back later as a `result` event to the same scene (queued while offline). */
  | { type: 'cloud_call'; method: string; request_id: string; params: Record<string, unknown> }
  /** Look at what is under the lamp after `delayMs`: the camera's frame comes back as an `image` event. */
  | { type: 'capture_page'; delayMs: number };

/**
 * `context` is what the runtime read for the scene before the step (e.g. the child's error
 * memory and review schedule for recitation), so the step itself stays pure.
 */

/** Why the orchestrator hands a turn to the scene (the guardrails' reason), and where a pending switch points. */
export interface Guard {
  reason: string;
  target?: SceneName;
}

export type SceneEvent =
  /** The scene becomes active; `resumed` when it had saved state; `from` the scene the child left. */
  | { type: 'enter'; slots: Slots; now: string; resumed: boolean; from: SceneName; context?: unknown }
  | { type: 'utterance'; text: string; intent: Intent; confidence: Confidence; slots: Slots; now: string; guard: Guard; context?: unknown }
  /** A photo was taken; `context` is what the runtime made of it (for homework: the page check). */
  | { type: 'image'; source: string; now: string; context?: unknown }
  /** The answer to an earlier cloud_call, delivered to the scene that asked even if it is no longer active. */
  | { type: 'result'; method: string; request_id: string; result: Record<string, unknown>; now: string };

export interface SceneState {
  phase: string;
  [key: string]: unknown;
}

export interface Reply {
  text: string;
  card?: Card;
  suggestedActions?: string[];
}

export interface StepResult<S extends SceneState = SceneState> {
  state: S;
  reply: Reply;
  effects: Effect[];
}

export interface Scene<S extends SceneState = SceneState> {
  readonly name: SceneName;
  initial(): S;
  step(state: S, event: SceneEvent): StepResult<S>;
}
