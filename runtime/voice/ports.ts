import type { Pcm } from '../../drivers/wav.js';

/**
 * What the voice loop needs of the speech models (models/vad, models/asr, models/kws,
 * models/tts). Absent models are absent ports: the loop degrades instead of failing.
 */
export type VadEvent = { type: 'speech_start'; atMs: number } | { type: 'speech_end'; startMs: number; endMs: number };

export interface VadPort {
  accept(samples: Int16Array): VadEvent[];
  /** Per scene: a recitation allows longer pauses than chat. */
  setPreset(name: 'chat' | 'recite'): void;
  reset(): void;
}

export interface AsrStreamPort {
  accept(samples: Int16Array, source?: string): void;
  partial(): string;
  finish(): Promise<string>;
}

export interface AsrPort {
  readonly engine: string;
  createStream(): AsrStreamPort;
}

export interface KwsPort {
  /** The keyword when it was just spotted. */
  accept(samples: Int16Array): string | undefined;
}

export interface TtsPort {
  readonly engine: string;
  /** Sentence by sentence: the first is yielded while the rest are still being synthesised. */
  stream(text: string): AsyncIterable<Pcm>;
}
