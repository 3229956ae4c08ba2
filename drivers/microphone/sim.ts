import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import { Listeners } from '../device.js';
import { decodeWav } from '../wav.js';
import { type AudioChunk, MIC_SAMPLE_RATE, type Microphone } from './microphone.js';

/** Simulated microphone: plays WAV files as captured audio, and passes typed text through. */
export class SimMicrophone implements Microphone {
  readonly kind = 'microphone' as const;
  readonly binding = 'simulator';
  private readonly audio = new Listeners<AudioChunk>();
  private readonly text = new Listeners<string>();
  private opened = false;
  private playedMs = 0;

  async open(): Promise<void> {
    this.opened = true;
  }

  async close(): Promise<void> {
    this.opened = false;
  }

  onAudio(fn: (chunk: AudioChunk) => void): () => void {
    return this.audio.add(fn);
  }

  onText(fn: (text: string) => void): () => void {
    return this.text.add(fn);
  }

  /** Test control: an utterance as if recognised from speech. */
  emitText(text: string): void {
    this.assertOpen();
    this.text.emit(text);
  }

  /** Test control: raw audio frames; `source` names the file they came from, if any. */
  emitAudio(samples: Int16Array, source?: string): void {
    this.assertOpen();
    this.audio.emit(source === undefined ? { samples, atMs: this.playedMs } : { samples, atMs: this.playedMs, source });
    this.playedMs += (samples.length / MIC_SAMPLE_RATE) * 1000;
  }

  /** Plays a 16 kHz mono WAV file in chunks of `chunkMs`, in real time or as fast as possible. */
  async playWav(file: string, opts: { realtime?: boolean; chunkMs?: number } = {}): Promise<void> {
    const pcm = decodeWav(await readFile(file), file);
    if (pcm.sampleRate !== MIC_SAMPLE_RATE) {
      throw new LampError(ErrorCode.DRIVER_PROTOCOL, `${file} is ${pcm.sampleRate} Hz; the microphone path is ${MIC_SAMPLE_RATE} Hz`, { file });
    }
    const step = Math.round((MIC_SAMPLE_RATE * (opts.chunkMs ?? 30)) / 1000);
    for (let i = 0; i < pcm.samples.length; i += step) {
      if (!this.opened) return; // closed on purpose: stop quietly
      this.emitAudio(pcm.samples.subarray(i, i + step), file);
      if (opts.realtime) await sleep(opts.chunkMs ?? 30);
    }
  }

  private assertOpen(): void {
    if (!this.opened) throw new LampError(ErrorCode.DRIVER_CLOSED, 'microphone is not open');
  }

  health(): Record<string, unknown> {
    return { binding: this.binding, open: this.opened, consumers: this.audio.size + this.text.size };
  }
}
