import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { tempDir } from '../../test/helpers/app.js';
import { rejection } from '../../test/helpers/caught.js';
import { alsaCaptureFromFile, mkfifo, waitFor } from '../test-support.js';
import { AlsaMicrophone, S16Reassembler } from './alsa.js';
import type { AudioChunk } from './microphone.js';

const ramp = (n: number): Int16Array => Int16Array.from({ length: n }, (_, i) => ((i * 37) % 20_000) - 10_000);
const bytesOf = (s: Int16Array): Buffer => Buffer.from(s.buffer, s.byteOffset, s.byteLength);
const joined = (chunks: AudioChunk[]): Int16Array => {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.samples.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c.samples, at);
    at += c.samples.length;
  }
  return out;
};

const mics: AlsaMicrophone[] = [];
const track = (m: AlsaMicrophone): AlsaMicrophone => (mics.push(m), m);
afterEach(async () => {
  await Promise.all(mics.splice(0).map((m) => m.close()));
});

describe('S16Reassembler', () => {
  it('rebuilds samples split at odd byte boundaries, as aligned copies', () => {
    const samples = ramp(101);
    const bytes = bytesOf(samples);
    const r = new S16Reassembler();
    const out: Int16Array[] = [];
    let at = 0;
    for (const n of [1, 3, 2, 5, 1, 1, 7, 0, 182]) {
      const got = r.push(bytes.subarray(at, at + n));
      if (got) out.push(got);
      at += n;
    }
    expect(at).toBe(bytes.length);
    expect(out.every((c) => c.byteOffset === 0)).toBe(true);
    const all = out.flatMap((c) => [...c]);
    expect(all).toEqual([...samples]);
  });
});

describe('AlsaMicrophone (real arecord)', () => {
  it('fans the samples arecord captures out to every consumer, in order, with a running clock; a throwing consumer stops no one', async () => {
    const dir = tempDir();
    // The sound card: ALSA's file plugin hands arecord these samples. (From a pipe it would mix
    // in the null device's buffer after every short read, so the recording is a plain file.)
    const speech = ramp(16_000);
    const infile = path.join(dir, 'speech.raw');
    writeFileSync(infile, bytesOf(speech));
    const mic = track(new AlsaMicrophone({ device: 'lamptest', env: alsaCaptureFromFile(dir, infile) }));
    const a: AudioChunk[] = [];
    const b: AudioChunk[] = [];
    // Past the end of the file the plugin goes on at full speed: keep only what the test needs.
    const enough = (chunks: AudioChunk[]): boolean => joined(chunks).length >= speech.length;
    mic.onAudio((c) => void (enough(a) || a.push(c)));
    mic.onAudio(() => {
      throw new Error('a broken consumer');
    });
    mic.onAudio((c) => void (enough(b) || b.push(c)));
    expect(mic.onText(() => undefined)).toBeTypeOf('function');
    await mic.open();
    await waitFor(() => enough(a) && enough(b), 'one second of audio');
    const health = mic.health();
    await mic.close();

    expect([...joined(a).subarray(0, speech.length)]).toEqual([...speech]);
    expect([...joined(b).subarray(0, speech.length)]).toEqual([...speech]);
    expect(a.every((c) => c.source === undefined)).toBe(true);
    for (let i = 1; i < a.length; i++) {
      const prev = a[i - 1] as AudioChunk;
      expect((a[i] as AudioChunk).atMs).toBeCloseTo(prev.atMs + prev.samples.length / 16, 6);
    }
    expect(health).toMatchObject({ capturing: true, restarts: 0, consumers: 3 });
    expect(health.consumerErrors).toBeGreaterThanOrEqual(a.length);
    expect(mic.health()).toMatchObject({ open: false, capturing: false });
  });

  it('captures from ALSA null (unpaced, and on alsa-lib 1.2.8 not silence but whatever is in its buffer) and stops for good on close', async () => {
    const mic = track(new AlsaMicrophone({ device: 'null' }));
    const chunks: AudioChunk[] = [];
    mic.onAudio((c) => void chunks.push(c));
    await mic.open();
    await waitFor(() => chunks.length >= 3, 'audio from the null device');
    await mic.close();
    const n = chunks.length;
    expect(chunks.slice(0, 3).every((c) => c.samples.length > 0 && c.samples.byteOffset === 0)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(chunks.length).toBe(n); // closed on purpose: nothing more, no restart
    expect(mic.health().restarts).toBe(0);
  });

  it('restarts arecord when it dies while open, and reports it', async () => {
    const dir = tempDir();
    const fifo = mkfifo(path.join(dir, 'mic.fifo'));
    const mic = track(new AlsaMicrophone({ device: 'lamptest', env: alsaCaptureFromFile(dir, fifo), restartMs: { first: 50, max: 200 } }));
    await mic.open();
    const pid = mic.health().pid as number;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL'); // the device was pulled out from under arecord
    await waitFor(() => mic.health().restarts === 1 && mic.health().capturing === true, 'a restart');
    const h = mic.health();
    expect(h.pid).not.toBe(pid);
    expect(h.lastExit).toMatchObject({ signal: 'SIGKILL' });
  });

  it('a device that cannot be opened is retried with growing delays, with arecord’s own error in health; close() ends the retries', async () => {
    const mic = track(new AlsaMicrophone({ device: 'no-such-pcm', restartMs: { first: 20, max: 80 } }));
    await mic.open();
    await waitFor(() => (mic.health().restarts as number) >= 3, 'three restarts');
    const h = mic.health();
    expect((h.lastExit as { stderr: string }).stderr).toMatch(/no-such-pcm/);
    await mic.close();
    const after = mic.health().restarts;
    await new Promise((r) => setTimeout(r, 200));
    expect(mic.health().restarts).toBe(after);
  });

  it('open() fails clearly when arecord is not installed', async () => {
    const mic = new AlsaMicrophone({ device: 'default', command: 'arecord-not-installed' });
    const err = await rejection(mic.open());
    expect(isLampError(err, ErrorCode.DRIVER_UNAVAILABLE)).toBe(true);
    expect(String(err)).toMatch(/not installed \(apt install alsa-utils\)/);
    expect(mic.health().open).toBe(false);
  });
});
