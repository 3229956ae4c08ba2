import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../runtime/config/load.js';
import { ErrorCode, isLampError } from '../runtime/errors.js';
import { tempDir } from '../test/helpers/app.js';
import { rejection } from '../test/helpers/caught.js';
import { SimCamera } from './camera/sim.js';
import { EvdevButton } from './button/evdev.js';
import { V4l2Camera } from './camera/v4l2.js';
import { bindingAvailable, createDrivers } from './index.js';
import { AlsaMicrophone } from './microphone/alsa.js';
import { probeRealDevice } from './probe.js';
import { AlsaSpeaker } from './speaker/alsa.js';
import type { AudioChunk } from './microphone/microphone.js';
import { SimMicrophone } from './microphone/sim.js';
import { SimServo } from './servo/sim.js';
import { SimSpeaker } from './speaker/sim.js';
import { decodeWav, encodeWav } from './wav.js';

const tone = (n: number, rate = 16_000): Int16Array => Int16Array.from({ length: n }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)));

describe('wav', () => {
  it('round-trips mono 16-bit PCM', () => {
    const samples = tone(1600);
    const back = decodeWav(encodeWav({ sampleRate: 16_000, samples }));
    expect(back.sampleRate).toBe(16_000);
    expect([...back.samples]).toEqual([...samples]);
  });

  it('rejects files that are not 16-bit PCM WAV, with the file named', () => {
    expect(() => decodeWav(Buffer.from('not a wav at all'), 'x.wav')).toThrow(/x\.wav is not a usable WAV file: no RIFF/);
    const wav = encodeWav({ sampleRate: 16_000, samples: tone(10) });
    wav.writeUInt16LE(8, 34); // 8-bit
    expect(() => decodeWav(wav)).toThrow(/only 16-bit PCM/);
  });
});

describe('simulator drivers', () => {
  it('camera: returns the image put under it, rejects what is not an image, fails clearly when empty', async () => {
    const cam = new SimCamera();
    await cam.open();
    expect(isLampError(await rejection(cam.capture()), ErrorCode.DRIVER_NO_FRAME)).toBe(true);
    expect(() => cam.show(Buffer.from('GIF89a...'))).toThrow(/neither JPEG nor PNG/);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
    cam.show(jpeg);
    const frame = await cam.capture();
    expect(frame.mime).toBe('image/jpeg');
    expect(frame.data.equals(jpeg)).toBe(true);
    await cam.close();
    expect(isLampError(await rejection(cam.capture()), ErrorCode.DRIVER_CLOSED)).toBe(true);
  });

  it('microphone: plays a WAV file as 30 ms chunks to every consumer, and passes typed text', async () => {
    const file = path.join(tempDir(), 'a.wav');
    writeFileSync(file, encodeWav({ sampleRate: 16_000, samples: tone(16_000) }));
    const mic = new SimMicrophone();
    await mic.open();
    const a: AudioChunk[] = [];
    const b: AudioChunk[] = [];
    mic.onAudio((c) => void a.push(c));
    mic.onAudio((c) => void b.push(c));
    const texts: string[] = [];
    mic.onText((t) => void texts.push(t));
    await mic.playWav(file);
    expect(a.length).toBe(Math.ceil(16_000 / 480));
    expect(a[0]?.samples.length).toBe(480);
    expect(a[1]?.atMs).toBe(30);
    expect(a.every((c) => c.source === file)).toBe(true); // the simulated recogniser finds the transcript beside it
    expect(b.length).toBe(a.length);
    mic.emitText('床前明月光');
    expect(texts).toEqual(['床前明月光']);
  });

  it('microphone: refuses a WAV file at the wrong rate', async () => {
    const file = path.join(tempDir(), 'b.wav');
    writeFileSync(file, encodeWav({ sampleRate: 44_100, samples: tone(100) }));
    const mic = new SimMicrophone();
    await mic.open();
    expect(String(await rejection(mic.playWav(file)))).toMatch(/44100 Hz/);
  });

  it('speaker: writes each clip as WAV and stops at once when asked', async () => {
    const dir = tempDir();
    const spk = new SimSpeaker(dir);
    await spk.open();
    spk.setVolume(0.5);
    const playing = spk.play({ sampleRate: 16_000, samples: tone(16_000 * 5) });
    expect(spk.playing).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    const t0 = performance.now();
    spk.stop();
    expect(spk.playing).toBe(false);
    expect(await playing).toEqual({ stopped: true });
    // The clip lasts 5 s; stopped, it ends as soon as its file is written.
    expect(performance.now() - t0).toBeLessThan(1000);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    const written = decodeWav(readFileSync(path.join(dir, files[0] as string)));
    expect(Math.max(...written.samples.subarray(0, 100))).toBeLessThanOrEqual(4000);
  });

  it('speaker: a stop while the clip is still being written stops it too', async () => {
    const spk = new SimSpeaker(tempDir());
    await spk.open();
    const playing = spk.play({ sampleRate: 16_000, samples: tone(16_000 * 5) });
    spk.stop();
    const t0 = performance.now();
    expect(await playing).toEqual({ stopped: true });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(spk.played[0]?.stopped).toBe(true);
  });

  it('servo: records commanded positions, clamped to range', async () => {
    const servo = new SimServo();
    await servo.open();
    await servo.move([{ joint: 0, angle: 200, durationMs: 100 }, { joint: 1, angle: 45, durationMs: 100 }]);
    expect(Object.fromEntries(servo.positions())).toEqual({ 0: 180, 1: 45 });
    expect(servo.history.map((h) => h.angle)).toEqual([180, 45]);
  });

  it('config chooses bindings; a real binding this build lacks is a clear error; none leaves the device out', () => {
    const cfg = (env: Record<string, string>) => loadConfig({ env: { LAMP_DATA_DIR: tempDir(), ...env } });
    expect(Object.keys(createDrivers(cfg({ LAMP_DRIVERS_SERVO: 'none' }))).sort()).toEqual(['button', 'camera', 'microphone', 'projector', 'speaker']);
    expect(() => createDrivers(cfg({ LAMP_DRIVERS_SERVO: 'real' }))).toThrow(/no real servo binding.*LAMP-2001/);
  });

  it('builds the real camera, microphone, speaker and button from the config; the speaker follows the live volume', () => {
    for (const kind of ['camera', 'microphone', 'speaker', 'button'] as const) expect(bindingAvailable(kind, 'real')).toBe(true);
    expect(bindingAvailable('servo', 'real')).toBe(false);
    const config = loadConfig({
      env: {
        LAMP_DATA_DIR: tempDir(),
        LAMP_DRIVERS_CAMERA: 'real',
        LAMP_DRIVERS_MICROPHONE: 'real',
        LAMP_DRIVERS_SPEAKER: 'real',
        LAMP_DRIVERS_BUTTON: 'real',
        LAMP_CAMERA_DEVICE: '/dev/video2',
        LAMP_AUDIO_CAPTURE_DEVICE: 'plughw:1,0',
        LAMP_DRIVERS_BUTTON_KEY_CODE: '57',
      },
    });
    const d = createDrivers(config);
    expect(d.camera).toBeInstanceOf(V4l2Camera);
    expect(d.microphone).toBeInstanceOf(AlsaMicrophone);
    expect(d.speaker).toBeInstanceOf(AlsaSpeaker);
    expect(d.button).toBeInstanceOf(EvdevButton);
    expect(d.camera?.health()).toMatchObject({ binding: 'real', device: '/dev/video2' });
    expect(d.microphone?.health()).toMatchObject({ device: 'plughw:1,0' });
    expect(d.button?.health()).toMatchObject({ device: '/dev/input/by-path/platform-gpio-keys-event', keyCode: 57 });
    expect(d.speaker?.health().volume).toBe(0.8);
    config.audio.volume = 0.3; // what the cloud's set_config does
    expect(d.speaker?.health().volume).toBe(0.3);
  });
});

describe('probeRealDevice (for lamp doctor)', () => {
  it('says whether the configured device nodes and sound cards exist, without opening them', () => {
    const dir = tempDir();
    const cards = path.join(dir, 'cards');
    writeFileSync(cards, ' 0 [rockchipes8388 ]: rockchip_es8388 - rockchip,es8388\n                      rockchip,es8388\n');
    const config = loadConfig({ env: { LAMP_DATA_DIR: dir, LAMP_CAMERA_DEVICE: '/dev/video9', LAMP_DRIVERS_BUTTON_DEVICE: '/dev/null' } });
    expect(probeRealDevice('camera', config)).toEqual({ ok: false, detail: 'camera /dev/video9 does not exist' });
    expect(probeRealDevice('button', config)).toEqual({ ok: true, detail: 'push-to-talk key 28 on /dev/null (character device)' });
    expect(probeRealDevice('speaker', config, cards)).toEqual({ ok: true, detail: 'ALSA default; sound cards: rockchipes8388' });
    expect(probeRealDevice('microphone', config, path.join(dir, 'none'))).toMatchObject({ ok: false, detail: expect.stringMatching(/no sound card/) });
  });
});
