import { readFile } from 'node:fs/promises';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import { type Camera, type Frame, sniffImageMime } from './camera.js';

/**
 * Simulated camera: returns the last image put in front of it — an upload from the simulator
 * page or a file a test loads. Captures fail with DRIVER_NO_FRAME until something is there.
 */
export class SimCamera implements Camera {
  readonly kind = 'camera' as const;
  readonly binding = 'simulator';
  private current: Frame | undefined;
  private opened = false;
  captures = 0;

  async open(): Promise<void> {
    this.opened = true;
  }

  async close(): Promise<void> {
    this.opened = false;
  }

  /** Puts an image under the lamp. Rejects anything that is not a JPEG or PNG. */
  show(data: Buffer, source = 'upload'): Frame {
    const mime = sniffImageMime(data);
    if (!mime) throw new LampError(ErrorCode.DRIVER_PROTOCOL, 'the image is neither JPEG nor PNG', { source, bytes: data.length });
    this.current = { data, mime, capturedAt: new Date(), source };
    return this.current;
  }

  async showFile(file: string): Promise<Frame> {
    return this.show(await readFile(file), file);
  }

  async capture(): Promise<Frame> {
    if (!this.opened) throw new LampError(ErrorCode.DRIVER_CLOSED, 'camera is not open');
    if (!this.current) throw new LampError(ErrorCode.DRIVER_NO_FRAME, 'nothing is under the simulated camera yet');
    this.captures++;
    return { ...this.current, capturedAt: new Date() };
  }

  reset(): void {
    this.current = undefined;
    this.captures = 0;
  }

  health(): Record<string, unknown> {
    return { binding: this.binding, open: this.opened, hasImage: this.current !== undefined };
  }
}
