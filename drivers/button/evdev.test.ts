import { closeSync, constants, openSync, unlinkSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { tempDir } from '../../test/helpers/app.js';
import { caught, rejection } from '../../test/helpers/caught.js';
import { mkfifo, waitFor } from '../test-support.js';
import { EV_KEY, EvdevButton } from './evdev.js';
import { SimButton } from './sim.js';

const KEY_ENTER = 28;
const EV_SYN = 0;

/** One struct input_event as the kernel writes it: timeval, type u16, code u16, value s32. */
function ev(type: number, code: number, value: number, size = 24): Buffer {
  const b = Buffer.alloc(size);
  b.writeUInt32LE(1_700_000_000, 0); // seconds; the button ignores the time
  b.writeUInt16LE(type, size - 8);
  b.writeUInt16LE(code, size - 6);
  b.writeInt32LE(value, size - 4);
  return b;
}
const press = (size = 24): Buffer => Buffer.concat([ev(EV_KEY, KEY_ENTER, 1, size), ev(EV_SYN, 0, 0, size)]);

const buttons: EvdevButton[] = [];
const fifos: string[] = [];
afterEach(async () => {
  await Promise.all(buttons.splice(0).map((b) => b.close()));
  // A reader still waiting on a pipe (a reopen in progress) is released by one writer coming and going.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader left, or the pipe is gone
    }
  }
});

/** A named pipe standing for /dev/input/eventN: reads block until the "kernel" (the test) writes. */
function inputDevice(): string {
  const fifo = mkfifo(path.join(tempDir(), 'event0'));
  fifos.push(fifo);
  return fifo;
}

function button(device: string, recordSize = 24): { button: EvdevButton; presses: () => number } {
  const b = new EvdevButton({ device, keyCode: KEY_ENTER, recordSize, reconnectMs: { first: 20, max: 100 } });
  buttons.push(b);
  let n = 0;
  b.onPress(() => n++);
  return { button: b, presses: () => n };
}

const stat = (b: EvdevButton, key: string): number => b.health()[key] as number;

describe('EvdevButton (input_event records through a pipe)', () => {
  it('reports a press of its key only, across split records; garbage and other keys are ignored without a crash', async () => {
    const device = inputDevice();
    const { button: b, presses } = button(device);
    b.onPress(() => {
      throw new Error('a broken consumer');
    });
    await b.open();
    const kernel = await open(device, 'w');

    // press, release, key repeat, another key
    await kernel.write(Buffer.concat([press(), ev(EV_KEY, KEY_ENTER, 0), ev(EV_KEY, KEY_ENTER, 2), ev(EV_KEY, 30, 1)]));
    await waitFor(() => stat(b, 'events') === 5, 'five events');
    expect(presses()).toBe(1);

    // one press arriving in three pieces
    const p = ev(EV_KEY, KEY_ENTER, 1);
    for (const piece of [p.subarray(0, 10), p.subarray(10, 21), p.subarray(21)]) {
      await kernel.write(piece);
      await new Promise((r) => setTimeout(r, 20));
    }
    await waitFor(() => presses() === 2, 'the split press');

    // two records' worth of bytes that are not input events
    await kernel.write(Buffer.from('garbage!'.repeat(6)));
    await waitFor(() => stat(b, 'events') === 8, 'the garbage read as records');
    expect(presses()).toBe(2);
    expect(stat(b, 'ignored')).toBe(2);

    await kernel.write(press());
    await waitFor(() => presses() === 3, 'a press after the garbage');
    expect(b.health()).toMatchObject({ reading: true, presses: 3, consumerErrors: 3, reconnects: 0 });
    await kernel.close();
  });

  it('a stray partial record cannot be resynchronised, but reopening the device starts aligned again', async () => {
    const device = inputDevice();
    const { button: b, presses } = button(device);
    await b.open();
    let kernel: FileHandle = await open(device, 'w');
    await kernel.write(Buffer.from([1, 2, 3, 4, 5])); // 5 stray bytes: every later record is shifted
    await kernel.close(); // the device closes under the reader …
    await waitFor(() => stat(b, 'reconnects') === 1, 'a reopen');
    expect(b.health().lastError).toBe('the device closed');
    kernel = await open(device, 'w'); // … and the reopened one is read from a record boundary
    await kernel.write(press());
    await waitFor(() => presses() === 1, 'a press after the reopen');
    await kernel.close();
  });

  it('reopens a device that went away, with growing delays, and works again when it is back', async () => {
    const device = inputDevice();
    const { button: b, presses } = button(device);
    await b.open();
    const kernel = await open(device, 'w');
    await kernel.write(press());
    await waitFor(() => presses() === 1, 'the first press');
    unlinkSync(device); // unplugged
    await kernel.close();
    await waitFor(() => stat(b, 'reconnects') >= 3, 'three attempts to reopen');
    expect(String(b.health().lastError)).toMatch(/ENOENT/);
    // Between two attempts nothing is being read (during an attempt the flag is briefly up).
    await waitFor(() => b.health().reading === false, 'no reading while the device is gone');

    mkfifo(device); // plugged back in
    const again = await open(device, 'w');
    await again.write(press());
    await waitFor(() => presses() === 2, 'a press on the device that came back');
    expect(b.health().reading).toBe(true);
    await again.close();
  });

  it('reads 16-byte records on 32-bit boards', async () => {
    const device = inputDevice();
    const { button: b, presses } = button(device, 16);
    await b.open();
    const kernel = await open(device, 'w');
    await kernel.write(Buffer.concat([press(16), ev(EV_KEY, KEY_ENTER, 0, 16), press(16)]));
    await waitFor(() => stat(b, 'events') === 5, 'five events');
    expect(presses()).toBe(2);
    await kernel.close();
  });

  it('open() on a device that does not exist fails with DRIVER_UNAVAILABLE naming it; a nonsense record size is refused', async () => {
    const err = await rejection(button('/dev/input/by-path/no-such-button-event').button.open());
    expect(isLampError(err, ErrorCode.DRIVER_UNAVAILABLE)).toBe(true);
    expect(String(err)).toMatch(/push-to-talk button \/dev\/input\/by-path\/no-such-button-event does not exist/);
    expect(() => new EvdevButton({ device: '/dev/null', keyCode: KEY_ENTER, recordSize: 20 })).toThrow(/16 or 24 bytes/);
  });
});

describe('SimButton', () => {
  it('passes presses to every consumer while open', async () => {
    const b = new SimButton();
    const got: string[] = [];
    const off = b.onPress(() => got.push('a'));
    b.onPress(() => got.push('b'));
    expect(isLampError(caught(() => b.press()), ErrorCode.DRIVER_CLOSED)).toBe(true);
    await b.open();
    b.press();
    off();
    b.press();
    expect(got).toEqual(['a', 'b', 'b']);
    expect(b.health()).toMatchObject({ open: true, presses: 2, consumers: 1 });
  });
});
