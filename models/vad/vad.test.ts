import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { resamplePcm } from '../audio/resample.js';
import { EspeakTts } from '../tts/espeak.js';
import { loadManifest } from '../manifest.js';
import { VAD_PRESETS, VoiceActivityDetector, resolvePreset, type VadEvent } from './vad.js';

const RATE = 16_000;
const TOLERANCE_MS = 150;

/** First and last sample louder than -40 dBFS: where the speech really is. */
function speechBounds(samples: Int16Array): { first: number; last: number } {
  const thr = 328;
  let first = -1;
  let last = -1;
  for (let i = 0; i < samples.length; i++) {
    if (Math.abs(samples[i] as number) > thr) {
      if (first < 0) first = i;
      last = i;
    }
  }
  return { first, last };
}

/** Deterministic white noise at the given level (Box–Muller over a small LCG). */
function noise(length: number, dbfs: number, seed = 1): Int16Array {
  const sigma = 32768 * 10 ** (dbfs / 20);
  let s = seed >>> 0;
  const uniform = (): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 1) / 4294967297;
  };
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    const g = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    out[i] = Math.max(-32768, Math.min(32767, Math.round(g * sigma)));
  }
  return out;
}

function feed(vad: VoiceActivityDetector, samples: Int16Array, chunk: (i: number) => number): VadEvent[] {
  const events: VadEvent[] = [];
  let k = 0;
  for (let i = 0; i < samples.length; ) {
    const n = chunk(k++);
    events.push(...vad.accept(samples.subarray(i, i + n)));
    i += n;
  }
  events.push(...vad.flush());
  return events;
}

describe('VoiceActivityDetector (real silero model through sherpa-onnx)', () => {
  const modelsDir = mkdtempSync(path.join(tmpdir(), 'lamp-vad-')); // empty: the npm copy is used
  let stream: Int16Array;
  let truth: { startMs: number; endMs: number }[];

  beforeAll(async () => {
    const tts = new EspeakTts();
    const zh = resamplePcm(await tts.synthesize('小朋友们好，今天我们一起读课文。', { lang: 'zh' }), RATE).samples;
    const en = resamplePcm(await tts.synthesize('Good morning, let us read a story together.', { lang: 'en' }), RATE).samples;
    const parts: Int16Array[] = [new Int16Array(RATE * 1.0), zh, new Int16Array(RATE * 2.0), en, new Int16Array(RATE * 1.0)];
    stream = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    truth = [];
    let at = 0;
    for (const p of parts) {
      stream.set(p, at);
      if (p === zh || p === en) {
        const b = speechBounds(p);
        truth.push({ startMs: ((at + b.first) * 1000) / RATE, endMs: ((at + b.last) * 1000) / RATE });
      }
      at += p.length;
    }
  });

  afterAll(() => rmSync(modelsDir, { recursive: true, force: true }));

  it('finds each spoken sentence within 150 ms of where it is, in 30 ms frames', async () => {
    const vad = await VoiceActivityDetector.load({ modelsDir, preset: 'chat' });
    const events = feed(vad, stream, () => 480);
    const ends = events.filter((e) => e.type === 'speech_end');
    const starts = events.filter((e) => e.type === 'speech_start');
    expect(ends).toHaveLength(2);
    expect(starts).toHaveLength(2);
    console.log('VAD segments vs truth (ms):', ends.map((e, i) => `start ${e.startMs} / ${Math.round(truth[i]?.startMs ?? 0)}, end ${e.endMs} / ${Math.round(truth[i]?.endMs ?? 0)}`).join('; '));
    ends.forEach((e, i) => {
      const t = truth[i] as { startMs: number; endMs: number };
      expect(Math.abs(e.startMs - t.startMs)).toBeLessThanOrEqual(TOLERANCE_MS);
      expect(Math.abs(e.endMs - t.endMs)).toBeLessThanOrEqual(TOLERANCE_MS);
      expect(e.samples.length).toBe(Math.round(((e.endMs - e.startMs) * RATE) / 1000));
      // speech_start comes first, agrees with the segment, and is announced while the child is still talking.
      const s = starts[i] as Extract<VadEvent, { type: 'speech_start' }>;
      expect(Math.abs(s.atMs - e.startMs)).toBeLessThanOrEqual(40);
      expect(s.detectedAtMs).toBeLessThan(t.startMs + 500);
      expect(events.indexOf(s)).toBeLessThan(events.indexOf(e));
    });
  });

  it('gives the same segments whatever the chunk sizes', async () => {
    const a = await VoiceActivityDetector.load({ modelsDir });
    const b = await VoiceActivityDetector.load({ modelsDir });
    const sizes = [1, 7, 511, 512, 513, 1600, 4000, 33];
    const ea = feed(a, stream, () => 480).filter((e) => e.type === 'speech_end');
    const eb = feed(b, stream, (k) => sizes[k % sizes.length] as number).filter((e) => e.type === 'speech_end');
    expect(eb.map((e) => [e.startMs, e.endMs])).toEqual(ea.map((e) => [e.startMs, e.endMs]));
  });

  it('finds nothing in digital silence or in -50 dBFS white noise', async () => {
    const vad = await VoiceActivityDetector.load({ modelsDir });
    expect(feed(vad, new Int16Array(RATE * 5), () => 480)).toEqual([]);
    expect(feed(vad, noise(RATE * 10, -50), () => 480)).toEqual([]);
    expect(vad.streamMs).toBe(15_000);
  });

  it('recite keeps a 1.2 s pause inside one utterance; chat splits it', async () => {
    const tts = new EspeakTts();
    const voiced = resamplePcm(await tts.synthesize('床前明月光', { lang: 'zh' }), RATE).samples;
    const b = speechBounds(voiced);
    const line = voiced.subarray(b.first, b.last + 1); // the pause is exactly the gap below
    const gap = new Int16Array(RATE * 1.2);
    const tail = new Int16Array(RATE * 2.5);
    const poem = new Int16Array(RATE * 0.5 + line.length * 2 + gap.length + tail.length);
    poem.set(line, RATE * 0.5);
    poem.set(line, RATE * 0.5 + line.length + gap.length);
    const chat = await VoiceActivityDetector.load({ modelsDir, preset: 'chat' });
    const recite = await VoiceActivityDetector.load({ modelsDir, preset: 'recite' });
    expect(feed(chat, poem, () => 480).filter((e) => e.type === 'speech_end')).toHaveLength(2);
    expect(feed(recite, poem, () => 480).filter((e) => e.type === 'speech_end')).toHaveLength(1);
  });

  it('switches presets mid-stream and keeps the stream clock', async () => {
    const vad = await VoiceActivityDetector.load({ modelsDir, preset: 'chat' });
    const half = Math.floor(stream.length / 2);
    const events = [...vad.accept(stream.subarray(0, RATE * 3))];
    expect(vad.speechStarted).toBe(true); // inside the first sentence
    events.push(...vad.setPreset('recite')); // the utterance in progress is ended, not lost
    expect(vad.speechStarted).toBe(false);
    expect(vad.options.minSilenceMs).toBe(VAD_PRESETS.recite.minSilenceMs);
    events.push(...vad.accept(stream.subarray(RATE * 3, half)), ...vad.accept(stream.subarray(half)), ...vad.flush());
    const ends = events.filter((e) => e.type === 'speech_end');
    expect(ends.length).toBeGreaterThanOrEqual(2);
    const last = ends[ends.length - 1] as Extract<VadEvent, { type: 'speech_end' }>;
    expect(Math.abs(last.startMs - (truth[1] as { startMs: number }).startMs)).toBeLessThanOrEqual(TOLERANCE_MS);
  });

  it('reset() drops an utterance in progress', async () => {
    const vad = await VoiceActivityDetector.load({ modelsDir });
    vad.accept(stream.subarray(0, RATE * 2));
    expect(vad.speechStarted).toBe(true);
    vad.reset();
    expect(vad.speechStarted).toBe(false);
    expect(vad.accept(new Int16Array(RATE))).toEqual([]);
  });

  it('names the missing model file, and refuses a file that is not the model', async () => {
    const manifest = loadManifest().map((m) => (m.name === 'silero-vad' ? { ...m, files: m.files.map((f) => ({ ...f, npm: 'nowhere/silero_vad.onnx' })) } : m));
    const err = await VoiceActivityDetector.load({ modelsDir, manifest }).catch((e: unknown) => e);
    expect(isLampError(err, ErrorCode.MODEL_MISSING)).toBe(true);
    expect(String((err as Error).message)).toContain('silero_vad.onnx');

    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(path.join(modelsDir, 'silero-vad'), { recursive: true });
    writeFileSync(path.join(modelsDir, 'silero-vad', 'silero_vad.onnx'), 'not a model');
    const bad = await VoiceActivityDetector.load({ modelsDir }).catch((e: unknown) => e);
    expect(isLampError(bad, ErrorCode.MODEL_CORRUPT)).toBe(true);
    rmSync(path.join(modelsDir, 'silero-vad'), { recursive: true });
  });

  it('rejects nonsense options', () => {
    expect(() => resolvePreset({ threshold: 2, minSilenceMs: 500, minSpeechMs: 250, maxSpeechMs: 10_000 })).toThrow(/threshold/);
  });

  it('reports its cost per 30 ms frame (median; a figure, not a pass mark)', async () => {
    const vad = await VoiceActivityDetector.load({ modelsDir });
    const times: number[] = [];
    for (let rep = 0; rep < 8; rep++) {
      for (let i = 0; i + 480 <= stream.length; i += 480) {
        const t0 = performance.now();
        vad.accept(stream.subarray(i, i + 480));
        times.push(performance.now() - t0);
      }
    }
    times.sort((x, y) => x - y);
    const median = times[Math.floor(times.length / 2)] as number;
    const p95 = times[Math.floor(times.length * 0.95)] as number;
    console.log(`VAD cost per 30 ms frame over ${times.length} frames: median ${median.toFixed(3)} ms, p95 ${p95.toFixed(3)} ms`);
    expect(times.length).toBeGreaterThan(3000);
  });
});
