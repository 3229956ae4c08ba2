import { z } from 'zod';

/** Version of the local WebSocket API; every message carries it as `v`. */
export const API_VERSION = 1;

const id = z.string().min(1).max(64).optional();

/** What a client (companion app, simulator page) may send. */
export const clientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ v: z.literal(API_VERSION), type: z.literal('utterance'), id, text: z.string() }),
  /** Look at what is under the camera now (the companion app's "check this page"). */
  z.strictObject({ v: z.literal(API_VERSION), type: z.literal('image'), id, ref: z.literal('camera') }),
  z.strictObject({ v: z.literal(API_VERSION), type: z.literal('ping'), id }),
  /** The push-to-talk button (the simulator page's stands for the lamp's). */
  z.strictObject({ v: z.literal(API_VERSION), type: z.literal('button'), id }),
]);

export type ClientMessage = z.infer<typeof clientMessageSchema>;

/** What the lamp sends. `response` carries the response envelope of a turn. */
export type ServerMessage =
  | { v: typeof API_VERSION; type: 'hello'; device_id: string; card: unknown }
  | { v: typeof API_VERSION; type: 'response'; id?: string; envelope: unknown }
  | { v: typeof API_VERSION; type: 'card'; card: unknown }
  | { v: typeof API_VERSION; type: 'state'; scene: string; phase: string; trace_id: string }
  | { v: typeof API_VERSION; type: 'speech'; trace_id: string; text: string }
  | { v: typeof API_VERSION; type: 'pong'; id?: string }
  /** The voice path: its state, and what the child is saying as it is recognised. */
  | { v: typeof API_VERSION; type: 'voice'; state?: string; partial?: string; final?: boolean }
  | { v: typeof API_VERSION; type: 'error'; id?: string; code: string; message: string };

export function parseClientMessage(raw: string): { ok: true; message: ClientMessage } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, message: 'not JSON' };
  }
  const parsed = clientMessageSchema.safeParse(json);
  if (!parsed.success) {
    return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`).join('; ') };
  }
  return { ok: true, message: parsed.data };
}
