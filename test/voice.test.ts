import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SimButton } from '../drivers/button/sim.js';
import type { SimMicrophone } from '../drivers/microphone/sim.js';
import type { SimSpeaker } from '../drivers/speaker/sim.js';
import { decodeWav } from '../drivers/wav.js';
import { rms } from '../models/audio/pcm.js';
import { runChecks } from '../runtime/commands/doctor.js';
import { startTestApp, tempDir } from './helpers/app.js';
import { until, utteranceWav } from './helpers/speech.js';

let app: Awaited<ReturnType<typeof startTestApp>> | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const dir = tempDir('lamp-voice-');

describe('voice, end to end on the simulator drivers with the real VAD and espeak-ng', () => {
  let ask: string;
  let chatter: string;
  beforeAll(async () => {
    ask = await utteranceWav(dir, 'ask', '我想背静夜思');
    chatter = await utteranceWav(dir, 'chatter', '今天天气真好');
  });

  it('button → speech → words → reply spoken; the lamp does not hear itself; the button interrupts it', async () => {
    app = await startTestApp({ LAMP_VOICE_ENABLED: 'true' });
    const voice = app.voice;
    expect(voice).toBeDefined();
    await voice?.ready;
    const loop = voice?.loop;
    expect(loop?.canListen).toBe(true);
    const mic = app.drivers.microphone as SimMicrophone;
    const speaker = app.drivers.speaker as SimSpeaker;
    const button = app.drivers.button as SimButton;

    button.press();
    expect(loop?.state).toBe('listening');
    await mic.playWav(ask, { realtime: false });
    // The clip plays from the moment it is handed over; its WAV record is there once written.
    await until('the reply to play', () => speaker.playing && speaker.played[0]?.file !== undefined);
    expect(app.pipeline().activeScene()).toBe('recite');
    expect(app.pipeline().turns).toBe(1);
    const clip = speaker.played[0];
    expect(clip?.file).toBeDefined();
    expect(rms(decodeWav(readFileSync(clip?.file as string)).samples)).toBeGreaterThan(0.01); // audible (RMS of full scale), not silence
    const timing = loop?.timings[0];
    expect(timing).toMatchObject({ trace_id: expect.any(String), final_text_ms: expect.any(Number), response_ready_ms: expect.any(Number), first_audio_ms: expect.any(Number) });
    expect((timing?.first_audio_ms ?? 0) >= (timing?.response_ready_ms ?? Infinity)).toBe(true);
    expect(app.health().components).toMatchObject({ voice: { voice_turns: 1 } });

    // While it speaks, the microphone's audio reaches neither VAD nor recogniser.
    expect(loop?.state).toBe('speaking');
    await mic.playWav(chatter, { realtime: false });
    await new Promise((r) => setTimeout(r, 300));
    expect(app.pipeline().turns).toBe(1);

    // The button stops playback at once (within the press itself) and listens.
    button.press();
    expect(speaker.playing).toBe(false);
    await new Promise((r) => setImmediate(r)); // the clip's record is updated once play() resolves
    expect(speaker.played[speaker.played.length - 1]?.stopped).toBe(true);
    expect(loop?.state).toBe('listening');
    await mic.playWav(chatter, { realtime: false });
    await until('the second turn', () => app?.pipeline().turns === 2);
  });

  it('the lamp does not talk over a child who has pressed to speak: its news waits until listening ends', async () => {
    app = await startTestApp({ LAMP_VOICE_ENABLED: 'true', LAMP_VOICE_LISTEN_TIMEOUT_MS: '1000' });
    await app.voice?.ready;
    const speaker = app.drivers.speaker as SimSpeaker;
    (app.drivers.button as SimButton).press();
    app.bus.emit('speech', { traceId: 'news', text: '老师看完你的作业啦。' });
    await new Promise((r) => setTimeout(r, 300));
    expect(speaker.played.length).toBe(0);
    expect(app.voice?.loop?.state).toBe('listening');
    await until('the news to be spoken after listening timed out', () => speaker.played.length === 1, 5000);
  });

  it('a corrupt VAD model: doctor says so, the lamp runs without listening, typed text still works', async () => {
    const models = path.join(dir, 'models');
    mkdirSync(path.join(models, 'silero-vad'), { recursive: true });
    writeFileSync(path.join(models, 'silero-vad', 'silero_vad.onnx'), 'not a model');
    const rows = runChecks(undefined, { LAMP_MODELS_DIR: models, LAMP_DATA_DIR: path.join(dir, 'data') });
    expect(rows.find((r) => r.check === 'model silero-vad')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^corrupt: .*without it: no voice input/) });

    app = await startTestApp({ LAMP_VOICE_ENABLED: 'true', LAMP_MODELS_DIR: models });
    await app.voice?.ready;
    expect(app.voice?.loop?.canListen).toBe(false);
    expect(app.voice?.stack?.degraded.join('\n')).toMatch(/no VAD .*LAMP-3002/);
    (app.drivers.button as SimButton).press(); // woken, cannot listen: no crash
    expect(app.voice?.loop?.state).toBe('idle');
    (app.drivers.microphone as SimMicrophone).emitText('我想背静夜思');
    await until('the typed turn', () => app?.pipeline().turns === 1);
    expect(app.health().components).toMatchObject({ voice: { can_listen: false } });
  });
});

