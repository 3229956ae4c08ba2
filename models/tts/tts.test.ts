import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { decodeWav, type Pcm } from '../../drivers/wav.js';
import { rms } from '../audio/pcm.js';
import { EspeakTts } from './espeak.js';
import { PhraseCache } from './cache.js';
import { buildOfflineTtsConfig, findSherpaTtsFiles, SherpaTts } from './sherpa-tts.js';
import { speakStream } from './stream.js';
import { detectLang, splitSentences, type SynthesizeOptions, type TextToSpeech } from './tts.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'lamp-tts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Wraps an engine and records when each synthesis starts and ends. */
class Counting implements TextToSpeech {
  readonly engine: TextToSpeech['engine'];
  readonly voice: string | undefined;
  readonly log: string[] = [];
  calls = 0;
  constructor(private readonly inner: TextToSpeech) {
    this.engine = inner.engine;
    this.voice = inner.voice;
  }
  async synthesize(text: string, opts?: SynthesizeOptions): Promise<Pcm> {
    const n = this.calls++;
    this.log.push(`start ${n}`);
    const pcm = await this.inner.synthesize(text, opts);
    this.log.push(`end ${n}`);
    return pcm;
  }
}

describe('splitSentences', () => {
  it('cuts at Chinese and English sentence ends and line breaks, keeping the punctuation', () => {
    expect(splitSentences('今天天气很好。我们去公园玩吧！你想去吗？')).toEqual(['今天天气很好。', '我们去公园玩吧！', '你想去吗？']);
    expect(splitSentences('This is a cat. It is black! Is it yours?')).toEqual(['This is a cat.', 'It is black!', 'Is it yours?']);
    expect(splitSentences('第一行的内容\n第二行的内容')).toEqual(['第一行的内容', '第二行的内容']);
    expect(splitSentences('先读课文；再写生字。')).toEqual(['先读课文；', '再写生字。']);
  });

  it('keeps short pieces with a neighbour, numbers whole and quotes with their sentence', () => {
    expect(splitSentences('好。我们开始背诵第一首诗吧。')).toEqual(['好。我们开始背诵第一首诗吧。']);
    expect(splitSentences('我们开始背诵第一首诗吧。好！')).toEqual(['我们开始背诵第一首诗吧。好！']);
    expect(splitSentences('Yes! We can read it now.')).toEqual(['Yes! We can read it now.']);
    expect(splitSentences('圆周率约等于3.14，对吗？对的。')).toEqual(['圆周率约等于3.14，对吗？对的。']);
    expect(splitSentences('老师说：“请坐好。”然后我们开始上课了。')).toEqual(['老师说：“请坐好。”', '然后我们开始上课了。']);
    expect(splitSentences('  ')).toEqual([]);
  });

  it('cuts a very long sentence at commas', () => {
    const long = '春天来了，小草从地下探出头来，柳树发出了嫩绿的新芽，燕子从南方飞回来了，小朋友们脱下厚厚的棉衣，到田野里去放风筝。';
    const pieces = splitSentences(long, { maxChars: 20 });
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe(long);
  });
});

describe('detectLang', () => {
  it('reads mostly-Han text as Chinese and mostly-Latin text as English', () => {
    expect(detectLang('小灯小灯')).toBe('zh');
    expect(detectLang('今天学 apple 这个词')).toBe('zh');
    expect(detectLang('Say apple, please.')).toBe('en');
    expect(detectLang('123')).toBe('zh');
  });
});

describe('EspeakTts (the real espeak-ng)', () => {
  const tts = new EspeakTts();

  it('speaks Chinese audibly, for a plausible time, at 22050 Hz', async () => {
    const text = '小朋友，我们一起来读这首诗。';
    const t0 = performance.now();
    const pcm = await tts.synthesize(text);
    console.log(`espeak-ng time to audio for a ${[...text].length}-character sentence: ${(performance.now() - t0).toFixed(0)} ms`);
    const seconds = pcm.samples.length / pcm.sampleRate;
    expect(pcm.sampleRate).toBe(22050);
    expect(rms(pcm.samples)).toBeGreaterThan(0.02); // silence is 0; -34 dBFS is clearly audible
    expect(seconds).toBeGreaterThan(13 * 0.15);
    expect(seconds).toBeLessThan(13 * 0.8);
  });

  it('speaks English audibly, for a plausible time', async () => {
    const pcm = await tts.synthesize('Good morning! Shall we read a story together?', { lang: 'en' });
    const seconds = pcm.samples.length / pcm.sampleRate;
    expect(rms(pcm.samples)).toBeGreaterThan(0.02);
    expect(seconds).toBeGreaterThan(8 * 0.15);
    expect(seconds).toBeLessThan(8 * 1.0);
  });

  it('takes text that looks like options as text (no shell, no argv)', async () => {
    const pcm = await tts.synthesize('--help; rm -rf / $(reboot)', { lang: 'en' });
    expect(rms(pcm.samples)).toBeGreaterThan(0.02);
  });

  it('says plainly when espeak-ng is not installed', async () => {
    const err = await new EspeakTts({ binary: path.join(tmp, 'no-espeak-here') }).synthesize('你好').catch((e: unknown) => e);
    expect(isLampError(err, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((err as Error).message).toContain('espeak-ng is not installed');
  });
});

describe('speakStream', () => {
  it('yields the first sentence before the last one has been synthesised, one sentence ahead', async () => {
    const tts = new Counting(new EspeakTts());
    const text = '今天我们学习三个生字。第一个字是山。第二个字是水。第三个字是田。';
    const sentences = splitSentences(text);
    expect(sentences).toHaveLength(4);
    const seen: string[][] = [];
    let count = 0;
    const t0 = performance.now();
    for await (const pcm of speakStream(tts, text)) {
      if (count === 0) console.log(`speakStream (espeak-ng) first audio after ${(performance.now() - t0).toFixed(0)} ms for ${[...text].length} characters of text`);
      seen.push([...tts.log]);
      expect(rms(pcm.samples)).toBeGreaterThan(0.02);
      count++;
      // The "speaker": playing takes a while; the next sentence is being made meanwhile.
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(count).toBe(4);
    // At the first yield: sentence 0 done, sentence 1 already started, the last not started.
    expect(seen[0]).toEqual(['start 0', 'end 0', 'start 1']);
    expect(seen[0]).not.toContain('start 3');
    expect(tts.calls).toBe(4);
  });

  it('stops making sentences when the consumer stops', async () => {
    const tts = new Counting(new EspeakTts());
    for await (const _pcm of speakStream(tts, '第一句话在这里。第二句话在这里。第三句话在这里。第四句话在这里。')) break;
    await new Promise((r) => setTimeout(r, 300));
    expect(tts.calls).toBe(2); // the one played and the one prepared, never the rest
  });
});

describe('PhraseCache', () => {
  it('returns identical samples from the cache without calling the engine', async () => {
    const dir = path.join(tmp, 'cache-hit');
    const engine = new Counting(new EspeakTts());
    const tts = new PhraseCache(dir).wrap(engine);
    const a = await tts.synthesize('我在听呢。');
    const b = await tts.synthesize('我在听呢。');
    expect(engine.calls).toBe(1);
    expect(b.sampleRate).toBe(a.sampleRate);
    expect(Buffer.from(b.samples.buffer, b.samples.byteOffset, b.samples.byteLength).equals(Buffer.from(a.samples.buffer, a.samples.byteOffset, a.samples.byteLength))).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // Another voice or engine is another key.
    expect(PhraseCache.key('espeak-ng', 'v1', '我在听呢。')).not.toBe(PhraseCache.key('espeak-ng', 'v2', '我在听呢。'));
    expect(PhraseCache.key('espeak-ng', 'v1', '我在听呢。')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('makes a damaged cache file again and overwrites it', async () => {
    const dir = path.join(tmp, 'cache-corrupt');
    const engine = new Counting(new EspeakTts());
    const cache = new PhraseCache(dir);
    const tts = cache.wrap(engine);
    const good = await tts.synthesize('再读一遍好吗？');
    const [file] = readdirSync(dir);
    const full = path.join(dir, file as string);
    const bytes = readFileSync(full);
    for (const damage of [Buffer.from('garbage'), bytes.subarray(0, bytes.length - 1000), Buffer.alloc(0)]) {
      writeFileSync(full, damage);
      const again = await tts.synthesize('再读一遍好吗？');
      expect(again.samples.length).toBe(good.samples.length);
      expect(decodeWav(readFileSync(full)).samples.length).toBe(good.samples.length);
    }
    expect(engine.calls).toBe(4);
  });
});

describe('SherpaTts', () => {
  const modelsDir = path.join(tmp, 'models');
  const put = (rel: string): void => {
    mkdirSync(path.dirname(path.join(modelsDir, rel)), { recursive: true });
    writeFileSync(path.join(modelsDir, rel), 'x');
  };

  it('names what is missing', async () => {
    const noDir = await SherpaTts.load({ modelsDir, name: 'vits-zh-hf-fanchen-c' }).catch((e: unknown) => e);
    expect(isLampError(noDir, ErrorCode.MODEL_MISSING)).toBe(true);
    put('vits-zh-hf-fanchen-c/lexicon.txt');
    const noTokens = await SherpaTts.load({ modelsDir, name: 'vits-zh-hf-fanchen-c' }).catch((e: unknown) => e);
    expect(isLampError(noTokens, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((noTokens as Error).message).toContain('tokens.txt');
    put('matcha-icefall-zh-baker/lexicon.txt');
    put('matcha-icefall-zh-baker/tokens.txt');
    put('matcha-icefall-zh-baker/model-steps-3.onnx');
    const noVocoder = await SherpaTts.load({ modelsDir, name: 'matcha-icefall-zh-baker' }).catch((e: unknown) => e);
    expect(isLampError(noVocoder, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((noVocoder as Error).message).toContain('vocoder');
  });

  it('builds the VITS configuration sherpa expects', () => {
    for (const f of ['lexicon.txt', 'tokens.txt', 'vits-zh-hf-fanchen-C.onnx', 'phone.fst', 'date.fst', 'number.fst', 'dict/jieba.dict.utf8']) put(`vits-zh-hf-fanchen-c/${f}`);
    const d = path.join(modelsDir, 'vits-zh-hf-fanchen-c');
    expect(buildOfflineTtsConfig(findSherpaTtsFiles(modelsDir, 'vits-zh-hf-fanchen-c'))).toEqual({
      model: {
        vits: { model: path.join(d, 'vits-zh-hf-fanchen-C.onnx'), lexicon: path.join(d, 'lexicon.txt'), tokens: path.join(d, 'tokens.txt'), dictDir: path.join(d, 'dict') },
        numThreads: 1,
        provider: 'cpu',
        debug: false,
      },
      maxNumSentences: 1,
      ruleFsts: ['phone.fst', 'date.fst', 'number.fst'].map((f) => path.join(d, f)).join(','),
    });
  });

  it('builds the Matcha configuration with the vocoder found in the models directory', () => {
    put('vocos-22khz-univ.onnx');
    const d = path.join(modelsDir, 'matcha-icefall-zh-baker');
    const cfg = buildOfflineTtsConfig(findSherpaTtsFiles(modelsDir, 'matcha-icefall-zh-baker'), { numThreads: 2 });
    expect(cfg).toEqual({
      model: {
        matcha: { acousticModel: path.join(d, 'model-steps-3.onnx'), vocoder: path.join(modelsDir, 'vocos-22khz-univ.onnx'), lexicon: path.join(d, 'lexicon.txt'), tokens: path.join(d, 'tokens.txt') },
        numThreads: 2,
        provider: 'cpu',
        debug: false,
      },
      maxNumSentences: 1,
    });
  });
});
