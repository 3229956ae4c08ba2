import { type ChildProcess, spawn } from 'node:child_process';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import type { Pcm } from '../wav.js';
import type { Speaker } from './speaker.js';

export interface AlsaSpeakerOptions {
  /** ALSA playback device (aplay -D), e.g. `default`, `plughw:0,0`. */
  device: string;
  /** The configured volume, 0 … 1, read at the start of every clip (it is a live setting). */
  volume: () => number;
  /** The playback program; `aplay` from alsa-utils unless a test says otherwise. */
  command?: string;
  /** Extra environment for the playback child (a test points ALSA at its own configuration). */
  env?: NodeJS.ProcessEnv;
}

const STDERR_KEEP = 2_000;

interface Current {
  child: ChildProcess;
  stopped: boolean;
  exited: Promise<void>;
}

/** Scales S16 samples by `volume` into the little-endian bytes aplay reads. */
export function scalePcm(samples: Int16Array, volume: number): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.round((samples[i] as number) * volume);
    out.writeInt16LE(s > 32767 ? 32767 : s < -32768 ? -32768 : s, i * 2);
  }
  return out;
}

/**
 * The real speaker: one `aplay` child per clip, fed the samples on stdin. The interruption path
 * (a child talking over the lamp) is stop(): SIGKILL, because aplay drains its buffer on SIGTERM,
 * and the clip must end now. A new clip waits until the previous child has exited, so the ALSA
 * device is free again even when it cannot be shared (a `hw:` device without dmix).
 */
export class AlsaSpeaker implements Speaker {
  readonly kind = 'speaker' as const;
  readonly binding = 'real';
  private readonly command: string;
  private current: Current | undefined;
  /** Bumped by every stop() and play(): a clip whose epoch is no longer current must not start. */
  private epoch = 0;
  private pending = 0;
  private opened = false;
  private override: number | undefined;
  private stats = { clips: 0, stopped: 0, failures: 0 };
  private lastError: string | undefined;

  constructor(private readonly opts: AlsaSpeakerOptions) {
    this.command = opts.command ?? 'aplay';
  }

  async open(): Promise<void> {
    this.opened = true;
  }

  async close(): Promise<void> {
    this.opened = false;
    this.stop();
    await this.current?.exited;
  }

  get playing(): boolean {
    return this.current !== undefined || this.pending > 0;
  }

  /** The volume a clip starts with: setVolume()'s value if it was called, else the configured one. */
  get volume(): number {
    const v = this.override ?? this.opts.volume();
    return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 1;
  }

  args(sampleRate: number): string[] {
    return ['-q', '-D', this.opts.device, '-t', 'raw', '-f', 'S16_LE', '-r', String(sampleRate), '-c', '1'];
  }

  async play(pcm: Pcm): Promise<{ stopped: boolean }> {
    if (!this.opened) throw new LampError(ErrorCode.DRIVER_CLOSED, 'speaker is not open');
    if (!pcm || !(pcm.samples instanceof Int16Array) || !Number.isInteger(pcm.sampleRate) || pcm.sampleRate < 1_000 || pcm.sampleRate > 192_000) {
      throw new LampError(ErrorCode.DRIVER_PROTOCOL, 'the speaker plays mono 16-bit PCM (Int16Array samples) at 1 000 … 192 000 Hz', {
        sampleRate: pcm?.sampleRate,
        samples: pcm?.samples?.constructor?.name,
      });
    }
    const mine = ++this.epoch;
    this.kill();
    this.pending++;
    try {
      await this.current?.exited;
    } finally {
      this.pending--;
    }
    if (mine !== this.epoch || !this.opened) return { stopped: true }; // stopped or replaced before it started
    if (pcm.samples.length === 0) return { stopped: false };
    const bytes = scalePcm(pcm.samples, this.volume);
    return this.run(bytes, pcm.sampleRate);
  }

  private run(bytes: Buffer, sampleRate: number): Promise<{ stopped: boolean }> {
    const env = this.opts.env ? { ...process.env, ...this.opts.env } : process.env;
    const child = spawn(this.command, this.args(sampleRate), { stdio: ['pipe', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (s: string) => {
      stderr = (stderr + s).slice(-STDERR_KEEP);
    });
    // aplay that fails or is killed closes its stdin under us; the exit status tells the story.
    child.stdin?.on('error', () => undefined);
    let markExited: () => void = () => undefined;
    const current: Current = { child, stopped: false, exited: new Promise<void>((r) => (markExited = r)) };
    this.current = current;
    this.stats.clips++;
    return new Promise<{ stopped: boolean }>((resolve, reject) => {
      let spawnError: Error | undefined;
      child.once('error', (err) => {
        spawnError = err;
      });
      child.once('close', (code, signal) => {
        if (this.current === current) this.current = undefined;
        markExited();
        if (current.stopped) {
          this.stats.stopped++;
          resolve({ stopped: true });
        } else if (code === 0 && !spawnError) {
          resolve({ stopped: false });
        } else {
          this.stats.failures++;
          const why = spawnError ? spawnError.message : `exit ${code ?? signal}`;
          const hint = (spawnError as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' ? ' (apt install alsa-utils)' : '';
          this.lastError = `${why}${stderr.trim() ? `: ${stderr.trim()}` : ''}`;
          reject(new LampError(ErrorCode.DRIVER_IO, `${this.command} -D ${this.opts.device} failed${hint}: ${this.lastError}`, { device: this.opts.device, code, signal, stderr: stderr.trim() }, spawnError ? { cause: spawnError } : undefined));
        }
      });
      child.stdin?.end(bytes);
    });
  }

  /** Kills the clip that is playing, if any. */
  private kill(): void {
    const current = this.current;
    if (!current || current.stopped) return;
    current.stopped = true;
    current.child.kill('SIGKILL');
  }

  stop(): void {
    this.epoch++;
    this.kill();
  }

  setVolume(volume: number): void {
    this.override = Math.min(1, Math.max(0, volume));
  }

  health(): Record<string, unknown> {
    return { binding: this.binding, device: this.opts.device, open: this.opened, playing: this.playing, volume: this.volume, ...this.stats, lastError: this.lastError };
  }
}
