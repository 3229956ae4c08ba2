import type { Device } from '../device.js';

export interface Frame {
  /** Encoded image (JPEG or PNG) as the page pipeline reads it. */
  data: Buffer;
  mime: 'image/jpeg' | 'image/png';
  capturedAt: Date;
  source: string;
}

export interface Camera extends Device {
  readonly kind: 'camera';
  /** Captures one frame on demand; never blocks the event loop. */
  capture(): Promise<Frame>;
}

export function sniffImageMime(data: Buffer): Frame['mime'] | undefined {
  if (data.length > 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length > 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  return undefined;
}
