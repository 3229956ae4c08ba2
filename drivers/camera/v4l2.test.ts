import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cv } from '../../models/cv.js';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { tempDir } from '../../test/helpers/app.js';
import { rejection } from '../../test/helpers/caught.js';
import { waitFor } from '../test-support.js';
import { V4l2Camera, type V4l2CameraOptions } from './v4l2.js';

/**
 * There is no /dev/video0 on the build machine. OpenCV's VideoCapture opens a video file through
 * the same read path, so the camera is pointed at a small MJPG video written here, one solid
 * colour per frame (blue channel = 40 × frame number) so that the order can be checked.
 */
function writeVideo(file: string, frames: number, width = 320, height = 240): string {
  const writer = new cv.VideoWriter(file, cv.VideoWriter.fourcc('MJPG'), 10, new cv.Size(width, height), true);
  for (let i = 0; i < frames; i++) writer.write(new cv.Mat(height, width, cv.CV_8UC3, [40 * i, 100, 200]));
  writer.release();
  return file;
}

const cameras: V4l2Camera[] = [];
afterEach(async () => {
  await Promise.all(cameras.splice(0).map((c) => c.close()));
});

function camera(device: string, opts: Partial<V4l2CameraOptions> = {}): V4l2Camera {
  const c = new V4l2Camera({ device, width: 1280, height: 720, fourcc: 'MJPG', reconnectMs: 100, ...opts });
  cameras.push(c);
  return c;
}

// The blue channel in the middle of the frame (Vec3 x is channel 0, BGR order).
const blueOf = (jpeg: Buffer): number => (cv.imdecode(jpeg).at(120, 160) as unknown as { x: number }).x;

describe('V4l2Camera (real OpenCV capture)', () => {
  it('captures frames on demand as JPEG of the device’s size, in order, serialising concurrent captures', async () => {
    const cam = camera(writeVideo(path.join(tempDir(), 'cam.avi'), 6));
    await cam.open();
    expect(cam.health()).toMatchObject({ connected: true, format: { width: 320, height: 240, fourcc: 'MJPG' } });
    const frames = await Promise.all([cam.capture(), cam.capture(), cam.capture()]);
    for (const [i, f] of frames.entries()) {
      expect(f.mime).toBe('image/jpeg');
      expect([...f.data.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      const img = cv.imdecode(f.data);
      expect([img.cols, img.rows]).toEqual([320, 240]);
      expect(blueOf(f.data)).toBeCloseTo(40 * i, -1); // JPEG is lossy: within ±5
      expect(f.source).toBe(cam.health().device);
    }
    expect(cam.health().captures).toBe(3);
  });

  it('open() on a device that does not exist, or is not a video, fails with DRIVER_UNAVAILABLE naming it', async () => {
    const missing = camera('/dev/video9');
    const err = await rejection(missing.open());
    expect(isLampError(err, ErrorCode.DRIVER_UNAVAILABLE)).toBe(true);
    expect(String(err)).toMatch(/camera \/dev\/video9 does not exist/);
    expect(isLampError(await rejection(missing.capture()), ErrorCode.DRIVER_CLOSED)).toBe(true);

    const garbage = path.join(tempDir(), 'garbage.avi');
    writeFileSync(garbage, 'this is not a video at all');
    const err2 = await rejection(camera(garbage).open());
    expect(isLampError(err2, ErrorCode.DRIVER_UNAVAILABLE)).toBe(true);
    expect(String(err2)).toMatch(/garbage\.avi could not be opened/);
  });

  it('a device that goes away is marked lost, released, retried every reconnectMs (visible in health) and used again when it is back', async () => {
    const dir = tempDir();
    const device = writeVideo(path.join(dir, 'cam.avi'), 2);
    const spare = writeVideo(path.join(dir, 'spare.avi'), 3);
    const cam = camera(device, { reconnectMs: 100 });
    await cam.open();
    await cam.capture();
    await cam.capture();
    unlinkSync(device); // unplugged; the open handle still has no more frames

    const noFrame = await rejection(cam.capture());
    expect(isLampError(noFrame, ErrorCode.DRIVER_NO_FRAME)).toBe(true);
    expect(String(noFrame)).toMatch(/returned no frame .*reopening in 100 ms/);
    expect(cam.health()).toMatchObject({ connected: false, losses: 1, lost: { reason: 'it returned an empty frame' } });
    const lost = await rejection(cam.capture());
    expect(isLampError(lost, ErrorCode.DRIVER_UNAVAILABLE)).toBe(true);
    expect(String(lost)).toMatch(/is lost \(it returned an empty frame\); reopening every 100 ms/);

    await waitFor(() => ((cam.health().lost as { attempts: number } | undefined)?.attempts ?? 0) >= 2, 'two reconnect attempts');
    expect((cam.health().lost as { lastError: string }).lastError).toMatch(/does not exist/);

    renameSync(spare, device); // plugged back in
    await waitFor(() => cam.health().connected === true, 'the camera to come back');
    expect(cam.health()).toMatchObject({ reconnects: 1, lost: undefined });
    const frame = await cam.capture();
    expect(blueOf(frame.data)).toBeCloseTo(0, -1);
  });

  it('a truncated device stream ends in a clear error and a lost device, never a crash', async () => {
    const dir = tempDir();
    const whole = readFileSync(writeVideo(path.join(dir, 'whole.avi'), 8));
    const device = path.join(dir, 'cut.avi');
    writeFileSync(device, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const cam = camera(device);
    let err: unknown;
    try {
      await cam.open();
      for (let i = 0; i < 10 && !err; i++) err = await cam.capture().then(() => undefined, (e: unknown) => e);
    } catch (e) {
      err = e; // the header itself was cut
    }
    expect(isLampError(err)).toBe(true);
    expect([ErrorCode.DRIVER_NO_FRAME, ErrorCode.DRIVER_UNAVAILABLE]).toContain((err as { code: number }).code);
    expect(String(err)).toMatch(/cut\.avi/);
    if ((err as { code: number }).code === ErrorCode.DRIVER_NO_FRAME) expect(cam.health()).toMatchObject({ connected: false, losses: 1 });
  });

  it('close() waits for a capture in flight and stops reconnecting', async () => {
    const dir = tempDir();
    const cam = camera(writeVideo(path.join(dir, 'cam.avi'), 1), { reconnectMs: 100 });
    await cam.open();
    const inFlight = cam.capture();
    await new Promise((r) => setImmediate(r)); // the read is now running on a worker thread
    await cam.close();
    expect((await inFlight).mime).toBe('image/jpeg');
    expect(isLampError(await rejection(cam.capture()), ErrorCode.DRIVER_CLOSED)).toBe(true);
    expect(cam.health()).toMatchObject({ open: false, connected: false });
  });

});
