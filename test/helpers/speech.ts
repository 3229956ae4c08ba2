import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeWav } from '../../drivers/wav.js';
import { resamplePcm } from '../../models/audio/resample.js';
import { EspeakTts } from '../../models/tts/espeak.js';

/**
 * Real speech (espeak-ng) at the microphone's 16 kHz inside silence, written as `<dir>/<name>.wav`
 * with its transcript beside it (`<name>.txt`) for the simulator speech recogniser.
 */
export async function utteranceWav(dir: string, name: string, text: string, silenceMs: { before: number; after: number } = { before: 400, after: 1500 }): Promise<string> {
  const speech = resamplePcm(await new EspeakTts().synthesize(text, { lang: 'zh' }), 16_000);
  const silence = (ms: number): Int16Array => new Int16Array((16_000 * ms) / 1000);
  const samples = new Int16Array([...silence(silenceMs.before), ...speech.samples, ...silence(silenceMs.after)]);
  const file = path.join(dir, `${name}.wav`);
  writeFileSync(file, encodeWav({ sampleRate: 16_000, samples }));
  writeFileSync(path.join(dir, `${name}.txt`), text);
  return file;
}

export async function until(what: string, fn: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
