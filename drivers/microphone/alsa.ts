import { type ChildProcess, spawn } from 'node:child_process';
import type { Logger } from '../../runtime/log.js';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import { Backoff } from '../backoff.js';
import { Listeners } from '../device.js';
import { type AudioChunk, MIC_SAMPLE_RATE, type Microphone } from './microphone.js';

export interface AlsaMicrophoneOptions {
  /** ALSA capture device (arecord -D), e.g. `default`, `plughw:1,0`. */
  device: string;
  /** The capture program; `arecord` from alsa-utils unless a test says otherwise. */
  command?: string;
  /** Extra environment for the capture child (a test points ALSA at its own configuration). */
  env?: NodeJS.ProcessEnv;
  /** First and longest delay before restarting a capture child that died. */
  restartMs?: { first: number; max: number };
  log?: Logger;
}

/** A child that ran this long had a working device: its death starts the back-off afresh. */
const HEALTHY_RUN_MS = 5_000;
const STDERR_KEEP = 2_000;

/**
 * Turns a byte stream of S16LE samples into Int16Array chunks. A pipe may split a sample between
 * two reads; the odd byte is kept for the next one. Each chunk is a fresh, aligned copy, so a
 * consumer may keep it. (The lamp's boards are little-endian, like S16LE.)
 */
export class S16Reassembler {
  private carry: number | undefined;

  push(bytes: Buffer): Int16Array | undefined {
    const total = bytes.length + (this.carry === undefined ? 0 : 1);
    const n = total >> 1;
    const out = new Int16Array(n);
    const view = new Uint8Array(out.buffer);
    let from = 0;
    if (this.carry !== undefined && n > 0) {
      view[0] = this.carry;
      view.set(bytes.subarray(0, 2 * n - 1), 1);
      from = 2 * n - 1;
      this.carry = undefined;
    } else {
      view.set(bytes.subarray(0, 2 * n));
      from = 2 * n;
    }
    if (from < bytes.length) this.carry = bytes[from];
    return n > 0 ? out : undefined;
  }

  reset(): void {
    this.carry = undefined;
  }
}

/**
 * The real microphone: one `arecord` child owns the ALSA capture device and its samples are fanned
 * out to every consumer. If the child dies while the microphone is open (device unplugged, driver
 * reset) it is restarted with a growing delay, and health() says so; close() ends it on purpose
 * and nothing restarts. The real microphone never emits text: recognition is the models' job.
 */
export class AlsaMicrophone implements Microphone {
  readonly kind = 'microphone' as const;
  readonly binding = 'real';
  private readonly audio: Listeners<AudioChunk>;
  private readonly text = new Listeners<string>();
  private readonly reassembler = new S16Reassembler();
  private readonly backoff: Backoff;
  private readonly command: string;
  private child: ChildProcess | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private opened = false;
  private openedAt = 0;
  /** Where the running child's sample clock starts, in ms since open; undefined until its first data. */
  private childBaseMs: number | undefined;
  private childSamples = 0;
  private endMs = 0;
  private stats = { starts: 0, restarts: 0, samples: 0, consumerErrors: 0 };
  private lastExit: { code: number | null; signal: string | null; stderr: string; at: string } | undefined;
  private nextRestartAt: number | undefined;

  constructor(private readonly opts: AlsaMicrophoneOptions) {
    this.command = opts.command ?? 'arecord';
    this.backoff = new Backoff(opts.restartMs?.first ?? 200, opts.restartMs?.max ?? 5_000);
    this.audio = new Listeners<AudioChunk>((err) => {
      this.stats.consumerErrors++;
      opts.log?.error({ err }, 'a microphone consumer threw; the others still get audio');
    });
  }

  /** arecord's arguments: raw 16 kHz mono S16LE on stdout, quiet. */
  get args(): string[] {
    return ['-q', '-D', this.opts.device, '-t', 'raw', '-f', 'S16_LE', '-r', String(MIC_SAMPLE_RATE), '-c', '1'];
  }

  /**
   * Starts capturing. Rejects only when the capture program cannot be started at all; a device
   * that fails (absent at boot, busy) is retried in the background and reported in health().
   */
  async open(): Promise<void> {
    if (this.opened) return;
    this.opened = true;
    this.openedAt = performance.now();
    this.endMs = 0;
    this.backoff.reset();
    try {
      await this.start();
    } catch (err) {
      this.opened = false;
      throw err;
    }
  }

  async close(): Promise<void> {
    this.opened = false;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.nextRestartAt = undefined;
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 1_000);
      await exited;
      clearTimeout(timer);
    }
    this.reassembler.reset();
  }

  onAudio(fn: (chunk: AudioChunk) => void): () => void {
    return this.audio.add(fn);
  }

  onText(fn: (text: string) => void): () => void {
    return this.text.add(fn);
  }

  private start(): Promise<void> {
    this.reassembler.reset();
    this.childBaseMs = undefined;
    this.childSamples = 0;
    const startedAt = performance.now();
    const env = this.opts.env ? { ...process.env, ...this.opts.env } : process.env;
    const child = spawn(this.command, this.args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    this.child = child;
    this.stats.starts++;
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (s: string) => {
      stderr = (stderr + s).slice(-STDERR_KEEP);
    });
    child.stdout?.on('data', (bytes: Buffer) => this.onBytes(child, bytes));
    let ended = false;
    const end = (code: number | null, signal: string | null, extra = ''): void => {
      if (ended) return;
      ended = true;
      this.onChildEnd(child, code, signal, (stderr + extra).trim(), performance.now() - startedAt);
    };
    child.on('close', (code, signal) => end(code, signal));
    return new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' && this.stats.starts === 1) {
          ended = true; // nothing to restart: there is no capture program
          if (this.child === child) this.child = undefined;
          reject(new LampError(ErrorCode.DRIVER_UNAVAILABLE, `cannot start ${this.command} for the microphone: it is not installed (apt install alsa-utils)`, { device: this.opts.device }, { cause: err }));
          return;
        }
        end(null, null, ` ${err.message}`);
        resolve();
      });
    });
  }

  private onBytes(child: ChildProcess, bytes: Buffer): void {
    if (child !== this.child || !this.opened) return;
    const samples = this.reassembler.push(bytes);
    if (!samples) return;
    const chunkMs = (samples.length / MIC_SAMPLE_RATE) * 1000;
    if (this.childBaseMs === undefined) {
      // The first data of a child: its first sample was captured about one chunk ago.
      this.childBaseMs = Math.max(this.endMs, performance.now() - this.openedAt - chunkMs);
    }
    const atMs = this.childBaseMs + (this.childSamples / MIC_SAMPLE_RATE) * 1000;
    this.childSamples += samples.length;
    this.stats.samples += samples.length;
    this.endMs = atMs + chunkMs;
    this.audio.emit({ samples, atMs });
  }

  private onChildEnd(child: ChildProcess, code: number | null, signal: string | null, stderr: string, ranMs: number): void {
    if (child !== this.child) return; // an old child, or closed on purpose
    this.child = undefined;
    this.lastExit = { code, signal, stderr, at: new Date().toISOString() };
    if (!this.opened) return;
    if (ranMs >= HEALTHY_RUN_MS) this.backoff.reset();
    const delay = this.backoff.next();
    this.nextRestartAt = Date.now() + delay;
    this.opts.log?.warn({ device: this.opts.device, code, signal, stderr, restartInMs: delay }, 'the microphone capture stopped unexpectedly; restarting it');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.nextRestartAt = undefined;
      if (!this.opened) return;
      this.stats.restarts++;
      void this.start();
    }, delay);
  }

  health(): Record<string, unknown> {
    const running = this.child !== undefined && this.child.exitCode === null;
    return {
      binding: this.binding,
      device: this.opts.device,
      open: this.opened,
      capturing: running,
      pid: running ? this.child?.pid : undefined,
      restarts: this.stats.restarts,
      nextRestartInMs: this.nextRestartAt === undefined ? undefined : Math.max(0, this.nextRestartAt - Date.now()),
      lastExit: this.lastExit,
      capturedSeconds: Math.round((this.stats.samples / MIC_SAMPLE_RATE) * 10) / 10,
      consumers: this.audio.size,
      consumerErrors: this.stats.consumerErrors,
    };
  }
}
