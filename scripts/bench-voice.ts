/**
 * npm run bench:voice — the voice path's own costs on this machine:
 *  - VAD (Silero through sherpa-onnx) per 30 ms frame;
 *  - the lamp's overhead from the end of speech to a ready response, without ASR inference
 *    (the simulator recogniser answers at once, so this is VAD end → turn pipeline → reply);
 *  - espeak-ng's time to first audio for typical replies, sentence-streamed.
 * Medians and p95 over many runs; the machine is shared, so compare ratios, not single runs.
 */
import { cpus } from 'node:os';
import type { SimButton } from '../drivers/button/sim.js';
import type { SimMicrophone } from '../drivers/microphone/sim.js';
import { checkModel, loadManifest, modelsDirOf } from '../models/manifest.js';
import { speakStream } from '../models/tts/stream.js';
import { EspeakTts } from '../models/tts/espeak.js';
import { VoiceActivityDetector } from '../models/vad/vad.js';
import { decodeWav } from '../drivers/wav.js';
import { readFileSync } from 'node:fs';
import { startTestApp, tempDir } from '../test/helpers/app.js';
import { until, utteranceWav } from '../test/helpers/speech.js';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}
const f = (x: number, d = 2): string => x.toFixed(d);

const dir = tempDir('lamp-bench-voice-');
const utterances = ['我想背静夜思', '今天天气真好', '我会背古诗了', '我们来背春晓吧', '这个字怎么读'];
const wavs = await Promise.all(utterances.map((t, i) => utteranceWav(dir, `u${i}`, t, { before: 300, after: 2000 })));

// 1. VAD per 30 ms frame, over speech and silence.
const vad = await VoiceActivityDetector.load({ modelsDir: modelsDirOf({ dataDir: dir, models: { dir: '' } }) });
const audio = wavs.map((w) => decodeWav(readFileSync(w)).samples);
const frame = 480;
const vadMs: number[] = [];
for (let round = 0; round < 6; round++) {
  for (const samples of audio) {
    for (let i = 0; i + frame <= samples.length; i += frame) {
      const t = performance.now();
      vad.accept(samples.subarray(i, i + frame));
      vadMs.push(performance.now() - t);
    }
  }
}

// 2. End of speech → response ready, through the whole lamp with the simulator recogniser.
const app = await startTestApp({ LAMP_VOICE_ENABLED: 'true' });
await app.voice?.ready;
const loop = app.voice?.loop;
if (!loop) throw new Error('the voice loop did not start');
const mic = app.drivers.microphone as SimMicrophone;
const button = app.drivers.button as SimButton;
for (let i = 0; i < 40; i++) {
  const before = loop.timings.length;
  button.press(); // also interrupts the previous reply
  await mic.playWav(wavs[i % wavs.length] as string, { realtime: false });
  await until(`voice turn ${i} (${utterances[i % utterances.length]}; state ${loop.state})`, () => loop.timings.length > before);
}
const timings = loop.timings.slice(5); // the first turns warm up the router and SQLite
const ready = timings.map((t) => t.response_ready_ms - t.final_text_ms);
await app.stop();

// 3. espeak-ng time to first audio, sentence by sentence.
const tts = new EspeakTts();
const replies = ['好的，我们来背《静夜思》。准备好了就开始背吧！', '20 道题对了 18 道，第 3 题和第 7 题再看看。', '你背得真好，只有一个字读错了。我们再读一遍好吗？'];
const firstAudio: number[] = [];
for (let i = 0; i < 24; i++) {
  const t = performance.now();
  const it = speakStream(tts, replies[i % replies.length] as string)[Symbol.asyncIterator]();
  await it.next();
  firstAudio.push(performance.now() - t);
  await it.return?.();
}

const models = loadManifest().map((m) => checkModel(modelsDirOf({ dataDir: dir, models: { dir: '' } }), m));
console.log(`bench:voice on ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
console.log(`models present: ${models.filter((m) => m.status === 'present').map((m) => m.name).join(', ')}`);
console.log(`models absent:  ${models.filter((m) => m.status !== 'present').map((m) => m.name).join(', ')} (simulator ASR, no wake word, espeak-ng voice)`);
console.log(`VAD per 30 ms frame (${vadMs.length} frames): median ${f(pct(vadMs, 50), 3)} ms, p95 ${f(pct(vadMs, 95), 3)} ms, p99 ${f(pct(vadMs, 99), 3)} ms   (goal < 1 ms)`);
console.log(`end of speech → response ready, without ASR inference (${ready.length} turns): median ${f(pct(ready, 50))} ms, p95 ${f(pct(ready, 95))} ms   (goal < 50 ms)`);
console.log(`espeak-ng time to first audio (${firstAudio.length} replies): median ${f(pct(firstAudio, 50), 0)} ms, p95 ${f(pct(firstAudio, 95), 0)} ms   (goal < 300 ms)`);
