import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import { type Pcm, encodeWav } from '../wav.js';
import type { Speaker } from './speaker.js';

/**
 * Simulated speaker: writes each played clip as a WAV file into `outDir` (or discards it when
 * no directory is given) and takes as long as the clip lasts unless stopped, so interruption
 * behaves as on a device.
 */
interface PlayedClip { file?: string; samples: number; sampleRate: number; stopped: boolean }
interface Playing { resolve: (v: { stopped: boolean }) => void; timer?: NodeJS.Timeout }

export class SimSpeaker implements Speaker {
  readonly kind = 'speaker' as const;
  readonly binding = 'simulator';
  volume = 1;
  played: PlayedClip[] = [];
  private current: Playing | undefined;
  private opened = false;
  private clip = 0;

  constructor(private readonly outDir: string | undefined, private readonly realtime = true) {}

  async open(): Promise<void> {
    if (this.outDir) await mkdir(this.outDir, { recursive: true });
    this.opened = true;
  }

  async close(): Promise<void> {
    this.stop();
    this.opened = false;
  }

  get playing(): boolean {
    return this.current !== undefined;
  }

  async play(pcm: Pcm): Promise<{ stopped: boolean }> {
    if (!this.opened) throw new LampError(ErrorCode.DRIVER_CLOSED, 'speaker is not open');
    this.stop();
    // The clip counts as playing from the call on, so a stop() while its file is written still stops it.
    let resolve!: Playing['resolve'];
    const done = new Promise<{ stopped: boolean }>((r) => (resolve = r));
    const clip: Playing = { resolve };
    this.current = clip;
    const entry: PlayedClip = { samples: pcm.samples.length, sampleRate: pcm.sampleRate, stopped: false };
    this.played.push(entry);
    if (this.outDir) {
      const file = path.join(this.outDir, `${Date.now()}-${String(++this.clip).padStart(4, '0')}.wav`);
      const scaled = this.volume === 1 ? pcm.samples : pcm.samples.map((s) => Math.round(s * this.volume));
      await writeFile(file, encodeWav({ sampleRate: pcm.sampleRate, samples: scaled }));
      entry.file = file;
    }
    if (this.current === clip) {
      const ms = this.realtime ? (pcm.samples.length / pcm.sampleRate) * 1000 : 0;
      clip.timer = setTimeout(() => resolve({ stopped: false }), ms);
    }
    const result = await done;
    if (this.current === clip) this.current = undefined;
    entry.stopped = result.stopped;
    return result;
  }

  stop(): void {
    if (!this.current) return;
    clearTimeout(this.current.timer);
    this.current.resolve({ stopped: true });
    this.current = undefined;
  }

  setVolume(volume: number): void {
    this.volume = Math.min(1, Math.max(0, volume));
  }

  health(): Record<string, unknown> {
    return { binding: this.binding, open: this.opened, playing: this.playing, clips: this.played.length, outDir: this.outDir ?? null };
  }
}
