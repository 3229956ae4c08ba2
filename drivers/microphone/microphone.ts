import type { Device } from '../device.js';

export const MIC_SAMPLE_RATE = 16_000;

/** A piece of captured audio: 16 kHz mono S16LE. */
export interface AudioChunk {
  samples: Int16Array;
  /** Milliseconds since the microphone opened, of the first sample. */
  atMs: number;
}

/**
 * One owner of the capture device, fanned out to every consumer (VAD, wake word, ASR).
 * `onText` carries utterances that arrive already as text: the simulator page's text box stands
 * for microphone plus speech recognition.
 */
export interface Microphone extends Device {
  readonly kind: 'microphone';
  onAudio(fn: (chunk: AudioChunk) => void): () => void;
  onText(fn: (text: string) => void): () => void;
}
