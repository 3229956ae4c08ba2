import type { Card, SceneName } from '../../scenes/types.js';

/** One shape for every reply, on the page, over WebSocket and in logs. */
export interface ResponseEnvelope {
  success: boolean;
  content: { type: 'text' | 'card'; text: string; card: Card | null; speech: string | null };
  trace_id: string;
  session_id: string;
  scene: SceneName;
  phase: string;
  suggested_actions: string[];
  need_tts: boolean;
  error: { code: string; message: string } | null;
  processing_time_ms: number;
  timestamp: string;
}

export function envelope(fields: Omit<ResponseEnvelope, 'timestamp'> & { timestamp?: string }): ResponseEnvelope {
  return { ...fields, timestamp: fields.timestamp ?? new Date().toISOString() };
}
