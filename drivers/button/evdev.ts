import { type ReadStream, createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { arch } from 'node:os';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import type { Logger } from '../../runtime/log.js';
import { Backoff } from '../backoff.js';
import { Listeners } from '../device.js';
import type { Button } from './button.js';

export const EV_KEY = 1;
export const KEY_PRESS = 1;

const ARCH_64 = new Set(['x64', 'arm64', 'ppc64', 'riscv64', 's390x', 'loong64', 'mips64el']);

/**
 * Size of one `struct input_event`: a timeval (two longs), type u16, code u16, value s32. 24 bytes
 * on 64-bit boards; 16 on 32-bit ones, where the kernel keeps the two longs 32-bit even for
 * y2038-safe user space.
 */
export const INPUT_EVENT_SIZE = ARCH_64.has(arch()) ? 24 : 16;

export interface EvdevButtonOptions {
  /** The input device, e.g. /dev/input/by-path/platform-gpio-keys-event. */
  device: string;
  /** Key code of the button (linux/input-event-codes.h). */
  keyCode: number;
  /** Bytes per input_event; the board's own size unless a test says otherwise. */
  recordSize?: number;
  reconnectMs?: { first: number; max: number };
  log?: Logger;
}

/**
 * The real push-to-talk button: key events read from a Linux input device. The kernel hands out
 * whole input_event records on every read, so records are taken from the start of the stream in
 * fixed steps; a stray partial record (only possible from something that is not an evdev device,
 * such as a pipe) is kept until the rest arrives. There is no marker to resynchronise on, so bytes
 * that are not input events are read as events with meaningless fields: they are ignored unless
 * they happen to look like a press of this key, and never crash the reader.
 *
 * A device that goes away (ENODEV on read, the file removed) is reopened with a growing delay.
 * The read happens on a libuv worker thread that waits for the next event; close() does not wait
 * for it (it ends when the next event arrives or the device goes away).
 */
export class EvdevButton implements Button {
  readonly kind = 'button' as const;
  readonly binding = 'real';
  private readonly presses: Listeners<void>;
  private readonly recordSize: number;
  private readonly backoff: Backoff;
  private stream: ReadStream | undefined;
  private carry: Buffer = Buffer.alloc(0);
  private reconnectTimer: NodeJS.Timeout | undefined;
  private opened = false;
  private stats = { presses: 0, events: 0, ignored: 0, reconnects: 0, consumerErrors: 0 };
  private lastError: string | undefined;

  constructor(private readonly opts: EvdevButtonOptions) {
    this.recordSize = opts.recordSize ?? INPUT_EVENT_SIZE;
    if (this.recordSize !== 16 && this.recordSize !== 24) throw new LampError(ErrorCode.CONFIG_INVALID, `an input_event is 16 or 24 bytes, not ${this.recordSize}`);
    this.backoff = new Backoff(opts.reconnectMs?.first ?? 200, opts.reconnectMs?.max ?? 5_000);
    this.presses = new Listeners<void>((err) => {
      this.stats.consumerErrors++;
      opts.log?.error({ err }, 'a push-to-talk consumer threw; the others still get the press');
    });
  }

  /** Fails with DRIVER_UNAVAILABLE when the device does not exist; once open, a lost device is reopened. */
  async open(): Promise<void> {
    if (this.opened) return;
    try {
      await stat(this.opts.device);
    } catch (err) {
      throw new LampError(ErrorCode.DRIVER_UNAVAILABLE, `push-to-talk button ${this.opts.device} does not exist (\`ls /dev/input/by-path\` lists the input devices)`, { device: this.opts.device }, { cause: err });
    }
    this.opened = true;
    this.backoff.reset();
    this.connect();
  }

  async close(): Promise<void> {
    this.opened = false;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.stream?.destroy();
    this.stream = undefined;
    this.carry = Buffer.alloc(0);
  }

  onPress(fn: () => void): () => void {
    return this.presses.add(fn);
  }

  private connect(): void {
    this.carry = Buffer.alloc(0);
    // A multiple of the record size: a read from evdev never returns part of an event.
    const stream = createReadStream(this.opts.device, { highWaterMark: this.recordSize * 64 });
    this.stream = stream;
    stream.on('data', (chunk) => {
      if (stream === this.stream) this.onBytes(chunk as Buffer);
    });
    stream.on('error', (err) => this.lose(stream, err.message));
    stream.on('end', () => this.lose(stream, 'the device closed'));
  }

  private onBytes(chunk: Buffer): void {
    const bytes = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const size = this.recordSize;
    const whole = bytes.length - (bytes.length % size);
    const at = size - 8; // type, code and value follow the timeval
    for (let off = 0; off < whole; off += size) {
      this.stats.events++;
      const type = bytes.readUInt16LE(off + at);
      const code = bytes.readUInt16LE(off + at + 2);
      const value = bytes.readInt32LE(off + at + 4);
      if (type === EV_KEY && code === this.opts.keyCode && value === KEY_PRESS) {
        this.stats.presses++;
        this.presses.emit();
      } else if (type !== EV_KEY && type !== 0 /* EV_SYN */ && type !== 4 /* EV_MSC */) {
        this.stats.ignored++;
      }
    }
    this.carry = Buffer.from(bytes.subarray(whole));
    this.backoff.reset();
  }

  private lose(stream: ReadStream, reason: string): void {
    if (stream !== this.stream) return;
    stream.destroy();
    this.stream = undefined;
    if (!this.opened) return;
    this.lastError = reason;
    const delay = this.backoff.next();
    this.opts.log?.warn({ device: this.opts.device, reason, reopenInMs: delay }, 'push-to-talk button lost; reopening it');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.opened) return;
      this.stats.reconnects++;
      this.connect();
    }, delay);
  }

  health(): Record<string, unknown> {
    return {
      binding: this.binding,
      device: this.opts.device,
      keyCode: this.opts.keyCode,
      open: this.opened,
      reading: this.stream !== undefined,
      ...this.stats,
      lastError: this.lastError,
    };
  }
}
