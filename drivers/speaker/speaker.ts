import type { Device } from '../device.js';
import type { Pcm } from '../wav.js';

export interface Speaker extends Device {
  readonly kind: 'speaker';
  /** Plays PCM; resolves when it has played out or was stopped (`stopped: true`). */
  play(pcm: Pcm): Promise<{ stopped: boolean }>;
  /** Stops playback at once (the interruption path). */
  stop(): void;
  /** 0 … 1. */
  setVolume(volume: number): void;
  readonly playing: boolean;
}
