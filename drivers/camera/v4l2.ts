import { existsSync } from 'node:fs';
import { cv, type Mat } from '../../models/cv.js';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import type { Logger } from '../../runtime/log.js';
import type { Camera, Frame } from './camera.js';

type VideoCapture = InstanceType<typeof cv.VideoCapture>;

export interface V4l2CameraOptions {
  /** `/dev/videoN`, or (bench and tests) a video file or stream URL that OpenCV can open. */
  device: string;
  width: number;
  height: number;
  /** Pixel format asked of a V4L2 device, e.g. MJPG. */
  fourcc: string;
  /** Delay between attempts to reopen a lost device. */
  reconnectMs: number;
  /**
   * A V4L2 device keeps filling its buffer while nobody reads, so the first frame after a pause
   * can show the page as it was seconds ago. When the last read is older than this, one frame is
   * read and dropped first. Default 300 ms for /dev/video*, never for files.
   */
  staleAfterMs?: number;
  log?: Logger;
}

function fourccText(code: number): string {
  const n = Math.round(code);
  return n > 0 ? String.fromCharCode(n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff) : '';
}

/** What OpenCV throws: the binding throws plain strings, the library Error objects. */
function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The real camera: an OpenCV VideoCapture on the V4L2 device. Frames are read on demand with
 * the asynchronous read (a worker thread), so the event loop never waits for the sensor, and
 * encoded to JPEG off the loop as well. Reads are serialised: one VideoCapture is not safe to
 * read from two threads. An empty frame or a failed read marks the device lost; it is released
 * and reopened every `reconnectMs` until it is back, and capture() says so meanwhile.
 * Opening itself is synchronous in the binding; for a present device it takes tens of
 * milliseconds, for an absent one it fails at once.
 */
export class V4l2Camera implements Camera {
  readonly kind = 'camera' as const;
  readonly binding = 'real';
  private cap: VideoCapture | undefined;
  private opened = false;
  private queue: Promise<unknown> = Promise.resolve();
  private reconnectTimer: NodeJS.Timeout | undefined;
  private lastReadAt = 0;
  private actual: { width: number; height: number; fourcc: string } | undefined;
  private lost: { reason: string; since: string; attempts: number; lastError?: string } | undefined;
  private stats = { captures: 0, losses: 0, reconnects: 0 };
  private readonly isV4l2: boolean;
  private readonly staleAfterMs: number;

  constructor(private readonly opts: V4l2CameraOptions) {
    this.isV4l2 = opts.device.startsWith('/dev/video');
    this.staleAfterMs = opts.staleAfterMs ?? (this.isV4l2 ? 300 : Number.POSITIVE_INFINITY);
  }

  async open(): Promise<void> {
    if (this.opened) return;
    this.cap = this.connect();
    this.opened = true;
    this.lost = undefined;
  }

  async close(): Promise<void> {
    this.opened = false;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    // Releasing while a worker thread reads would free the capture under it: wait for the read.
    await this.queue.catch(() => undefined);
    this.cap?.release();
    this.cap = undefined;
    this.lost = undefined;
  }

  /** Opens the device and asks it for the configured format. Throws DRIVER_UNAVAILABLE naming the device. */
  private connect(): VideoCapture {
    const { device } = this.opts;
    const isPath = !/^[a-z]+:\/\//i.test(device);
    if (isPath && !existsSync(device)) {
      throw new LampError(ErrorCode.DRIVER_UNAVAILABLE, `camera ${device} does not exist (is the camera plugged in? \`v4l2-ctl --list-devices\` lists them)`, { device });
    }
    let cap: VideoCapture;
    try {
      // V4L2 for the device itself; for a file or stream (bench, tests) FFmpeg, which opens it
      // without trying every other backend first.
      cap = new cv.VideoCapture(device, this.isV4l2 ? cv.CAP_V4L2 : cv.CAP_FFMPEG);
    } catch (err) {
      throw new LampError(ErrorCode.DRIVER_UNAVAILABLE, `camera ${device} could not be opened: ${describe(err)}`, { device });
    }
    if (this.isV4l2) {
      // The format first: a V4L2 driver offers different sizes per pixel format.
      cap.set(cv.CAP_PROP_FOURCC, cv.VideoWriter.fourcc(this.opts.fourcc));
      cap.set(cv.CAP_PROP_FRAME_WIDTH, this.opts.width);
      cap.set(cv.CAP_PROP_FRAME_HEIGHT, this.opts.height);
      cap.set(cv.CAP_PROP_BUFFERSIZE, 1);
    }
    this.actual = { width: cap.get(cv.CAP_PROP_FRAME_WIDTH), height: cap.get(cv.CAP_PROP_FRAME_HEIGHT), fourcc: fourccText(cap.get(cv.CAP_PROP_FOURCC)) };
    if (this.isV4l2 && (this.actual.width !== this.opts.width || this.actual.height !== this.opts.height || this.actual.fourcc !== this.opts.fourcc)) {
      this.opts.log?.warn({ device, asked: { width: this.opts.width, height: this.opts.height, fourcc: this.opts.fourcc }, got: this.actual }, 'the camera does not offer the configured format; using what it gives');
    }
    return cap;
  }

  capture(): Promise<Frame> {
    const run = this.queue.then(() => this.captureNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async captureNow(): Promise<Frame> {
    const { device } = this.opts;
    if (!this.opened) throw new LampError(ErrorCode.DRIVER_CLOSED, 'camera is not open');
    const cap = this.cap;
    if (!cap) {
      const lost = this.lost;
      throw new LampError(
        ErrorCode.DRIVER_UNAVAILABLE,
        `camera ${device} is lost (${lost?.reason ?? 'unknown'}); reopening every ${this.opts.reconnectMs} ms, ${lost?.attempts ?? 0} attempt(s) so far`,
        { device, lost },
      );
    }
    let mat: Mat;
    try {
      if (performance.now() - this.lastReadAt > this.staleAfterMs) await cap.readAsync();
      mat = await cap.readAsync();
    } catch (err) {
      this.markLost(`read failed: ${describe(err)}`);
      throw new LampError(ErrorCode.DRIVER_UNAVAILABLE, `camera ${device} read failed: ${describe(err)}; reopening in ${this.opts.reconnectMs} ms`, { device });
    }
    this.lastReadAt = performance.now();
    if (mat.empty) {
      this.markLost('it returned an empty frame');
      throw new LampError(ErrorCode.DRIVER_NO_FRAME, `camera ${device} returned no frame (unplugged?); reopening in ${this.opts.reconnectMs} ms`, { device });
    }
    let data: Buffer;
    try {
      data = await cv.imencodeAsync('.jpg', mat);
    } catch (err) {
      throw new LampError(ErrorCode.DRIVER_IO, `camera ${device}: the frame could not be encoded as JPEG: ${describe(err)}`, { device, cols: mat.cols, rows: mat.rows });
    }
    this.stats.captures++;
    return { data, mime: 'image/jpeg', capturedAt: new Date(), source: device };
  }

  /** Runs inside the capture queue, so no read is in flight on `cap`. */
  private markLost(reason: string): void {
    this.cap?.release();
    this.cap = undefined;
    this.stats.losses++;
    this.lost = { reason, since: new Date().toISOString(), attempts: 0 };
    this.opts.log?.warn({ device: this.opts.device, reason, reconnectMs: this.opts.reconnectMs }, 'camera lost; reopening it');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.opened || this.cap) return;
      const lost = this.lost;
      if (lost) lost.attempts++;
      try {
        this.cap = this.connect();
        this.lastReadAt = 0;
        this.stats.reconnects++;
        this.opts.log?.info({ device: this.opts.device, attempts: lost?.attempts }, 'camera is back');
        this.lost = undefined;
      } catch (err) {
        if (lost) lost.lastError = describe(err);
        this.scheduleReconnect();
      }
    }, this.opts.reconnectMs);
  }

  health(): Record<string, unknown> {
    return {
      binding: this.binding,
      device: this.opts.device,
      open: this.opened,
      connected: this.cap !== undefined,
      format: this.actual,
      lost: this.lost,
      ...this.stats,
    };
  }
}
