import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { encodeWav } from '../../drivers/wav.js';
import { resamplePcm } from '../audio/resample.js';
import { EspeakTts } from '../tts/espeak.js';
import { buildOnlineRecognizerConfig, findTransducerFiles, SherpaRecognizer } from './sherpa-asr.js';
import { SimAsrEngine } from './sim-asr.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'lamp-asr-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const RATE = 16_000;
const NAME = 'sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20';

describe('SimAsrEngine', () => {
  let wav: string;
  let samples: Int16Array;
  let speechStart = 0;
  let speechEnd = 0;
  const transcript = '床前明月光，疑是地上霜。';

  beforeAll(async () => {
    const speech = resamplePcm(await new EspeakTts().synthesize(transcript, { lang: 'zh' }), RATE).samples;
    samples = new Int16Array(RATE + speech.length + RATE * 2);
    samples.set(speech, RATE);
    for (let i = 0; i < samples.length; i++) {
      if (Math.abs(samples[i] as number) > 328) {
        if (!speechStart) speechStart = i;
        speechEnd = i;
      }
    }
    wav = path.join(tmp, 'poem.wav');
    writeFileSync(wav, encodeWav({ sampleRate: RATE, samples }));
    writeFileSync(path.join(tmp, 'poem.txt'), `  ${transcript}\n`);
  });

  function play(until: number, stream = new SimAsrEngine().createStream()): ReturnType<SimAsrEngine['createStream']> {
    for (let i = 0; i < until; i += 480) stream.accept(samples.subarray(i, Math.min(until, i + 480)), wav);
    return stream;
  }

  it('reveals the transcript in proportion to the speech played', async () => {
    expect(play(speechStart - 100).partial()).toBe('');
    const half = play(Math.round((speechStart + speechEnd) / 2)).partial();
    const n = [...transcript].length;
    expect([...half].length).toBeGreaterThanOrEqual(Math.floor(n / 2) - 1);
    expect([...half].length).toBeLessThanOrEqual(Math.ceil(n / 2) + 1);
    expect(transcript.startsWith(half)).toBe(true);
    const s = play(speechEnd + 1);
    expect(s.partial()).toBe(transcript);
    expect(s.isEndpoint()).toBe(false); // the child may go on
    expect(await s.finish()).toBe(transcript);
  });

  it('says the utterance is over after the trailing silence, and finish() gives the whole transcript early', async () => {
    expect(play(speechEnd + RATE).isEndpoint()).toBe(true);
    expect(await play(speechStart + 800).finish()).toBe(transcript);
  });

  it('gives an empty result for a recording without a transcript beside it', async () => {
    const other = path.join(tmp, 'unlabelled.wav');
    writeFileSync(other, encodeWav({ sampleRate: RATE, samples }));
    const s = new SimAsrEngine().createStream();
    s.accept(samples.subarray(0, samples.length), other);
    expect(s.partial()).toBe('');
    expect(await s.finish()).toBe('');
    const none = new SimAsrEngine().createStream();
    none.accept(new Int16Array(480));
    expect(await none.finish()).toBe('');
  });
});

describe('SherpaRecognizer', () => {
  const modelsDir = path.join(tmp, 'models');
  const dir = path.join(modelsDir, NAME);
  const put = (f: string): void => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, f), 'x');
  };

  it('names the missing directory or file instead of loading', async () => {
    const noDir = await SherpaRecognizer.load({ modelsDir, name: NAME }).catch((e: unknown) => e);
    expect(isLampError(noDir, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((noDir as Error).message).toContain(NAME);
    put('encoder-epoch-99-avg-1.onnx');
    put('decoder-epoch-99-avg-1.onnx');
    const noJoiner = await SherpaRecognizer.load({ modelsDir, name: NAME }).catch((e: unknown) => e);
    expect(isLampError(noJoiner, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((noJoiner as Error).message).toContain('joiner');
    put('joiner-epoch-99-avg-1.onnx');
    const noTokens = await SherpaRecognizer.load({ modelsDir, name: NAME }).catch((e: unknown) => e);
    expect(isLampError(noTokens, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((noTokens as Error).message).toContain('tokens.txt');
    writeFileSync(path.join(dir, 'tokens.txt'), '');
    const empty = await SherpaRecognizer.load({ modelsDir, name: NAME }).catch((e: unknown) => e);
    expect(isLampError(empty, ErrorCode.MODEL_CORRUPT)).toBe(true);
  });

  it('builds a greedy streaming transducer configuration with endpoints on and no biasing', () => {
    for (const f of ['encoder-epoch-99-avg-1.int8.onnx', 'joiner-epoch-99-avg-1.int8.onnx', 'decoder-epoch-99-avg-1.int8.onnx', 'tokens.txt']) put(f);
    const files = findTransducerFiles(modelsDir, NAME);
    expect(files).toEqual({
      encoder: path.join(dir, 'encoder-epoch-99-avg-1.int8.onnx'),
      decoder: path.join(dir, 'decoder-epoch-99-avg-1.onnx'),
      joiner: path.join(dir, 'joiner-epoch-99-avg-1.int8.onnx'),
      tokens: path.join(dir, 'tokens.txt'),
    });
    expect(findTransducerFiles(modelsDir, NAME, false).encoder).toBe(path.join(dir, 'encoder-epoch-99-avg-1.onnx'));
    const cfg = buildOnlineRecognizerConfig(files, { endpoint: { rule2MinTrailingSilence: 0.8 } });
    expect(cfg).toEqual({
      featConfig: { sampleRate: 16000, featureDim: 80 },
      modelConfig: {
        transducer: { encoder: files.encoder, decoder: files.decoder, joiner: files.joiner },
        tokens: files.tokens,
        numThreads: 1,
        provider: 'cpu',
        debug: 0,
      },
      decodingMethod: 'greedy_search',
      maxActivePaths: 4,
      enableEndpoint: true,
      rule1MinTrailingSilence: 2.4,
      rule2MinTrailingSilence: 0.8,
      rule3MinUtteranceLength: 20,
    });
    // Nothing that could pull the result toward the expected text.
    expect(JSON.stringify(cfg)).not.toMatch(/hotword|context|ruleFst|lmConfig/i);
  });
});
