import type { Device } from '../device.js';

export const MIC_SAMPLE_RATE = 16_000;

/** A piece of captured audio: 16 kHz mono S16LE. */
export interface AudioChunk {
  samples: Int16Array;
  /** Milliseconds since the microphone opened, of the first sample. */
  atMs: number;
  /**
   * Where the audio came from when it was not captured live: the simulator sets the WAV file's
   * path so that the simulated speech recogniser can read the transcript beside it. Undefined
   * for the real microphone.
   */
  source?: string;
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
