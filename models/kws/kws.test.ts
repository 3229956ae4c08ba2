import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { findTransducer } from '../audio/model-files.js';
import { buildKeywordSpotterConfig, KeywordSpotter } from './kws.js';
import { keywordsToTokens, parseTokens, syllableTokens } from './tokens.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'lamp-kws-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('keywordsToTokens', () => {
  it('reproduces the keyword lines shipped with sherpa-onnx’s wenetspeech KWS model', () => {
    const shipped: [string, string][] = [
      ['你好军哥', 'n ǐ h ǎo j ūn g ē @你好军哥'],
      ['小爱同学', 'x iǎo ài t óng x ué @小爱同学'],
      ['你好问问', 'n ǐ h ǎo w èn w èn @你好问问'],
      ['小艺小艺', 'x iǎo y ì x iǎo y ì @小艺小艺'],
      ['小米小米', 'x iǎo m ǐ x iǎo m ǐ @小米小米'],
      ['林美丽', 'l ín m ěi l ì @林美丽'],
    ];
    expect(keywordsToTokens(shipped.map(([k]) => k))).toEqual(shipped.map(([, line]) => line));
  });

  it('spells the lamp’s wake word', () => {
    expect(keywordsToTokens(['小灯小灯'])).toEqual(['x iǎo d ēng x iǎo d ēng @小灯小灯']);
  });

  it('splits initials the non-strict way, keeps ü and zero-initial syllables whole', () => {
    expect(syllableTokens('zhāng')).toEqual(['zh', 'āng']);
    expect(syllableTokens('ér')).toEqual(['ér']);
    expect(syllableTokens('lǜ')).toEqual(['l', 'ǜ']);
    expect(syllableTokens('yuè')).toEqual(['y', 'uè']);
    expect(keywordsToTokens(['一个'])).toEqual(['y ī g è @一个']); // dictionary tone, no sandhi
  });

  it('refuses what the model cannot spell, and tokens it does not have', () => {
    expect(() => keywordsToTokens(['hey lamp'])).toThrow(/cannot spell/);
    const vocab = parseTokens('<blk> 0\nx 1\niǎo 2\nd 3\n');
    try {
      keywordsToTokens(['小灯小灯'], vocab);
      expect.unreachable();
    } catch (err) {
      expect(isLampError(err, ErrorCode.CONFIG_INVALID)).toBe(true);
      expect((err as Error).message).toContain('ēng');
    }
    expect(keywordsToTokens(['小灯小灯'], parseTokens('x 1\niǎo 2\nd 3\nēng 4\n'))).toHaveLength(1);
  });
});

describe('KeywordSpotter', () => {
  const name = 'sherpa-onnx-kws-zipformer-wenetspeech-3.3m-2024-01-01';
  const dir = path.join(tmp, name);

  it('is MODEL_MISSING without the model, naming what is missing', async () => {
    const err = await KeywordSpotter.load({ modelsDir: tmp, name, keywords: ['小灯小灯'] }).catch((e: unknown) => e);
    expect(isLampError(err, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((err as Error).message).toContain(name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'encoder-epoch-12-avg-2-chunk-16-left-64.onnx'), 'x');
    const noDecoder = await KeywordSpotter.load({ modelsDir: tmp, name, keywords: ['小灯小灯'] }).catch((e: unknown) => e);
    expect(isLampError(noDecoder, ErrorCode.MODEL_MISSING)).toBe(true);
    expect((noDecoder as Error).message).toContain('decoder-epoch-12-avg-2-chunk-16-left-64.onnx');
  });

  it('builds the spotter configuration from the same model variant', () => {
    for (const f of ['encoder-epoch-12-avg-2-chunk-16-left-64.int8.onnx', 'decoder-epoch-12-avg-2-chunk-16-left-64.onnx', 'joiner-epoch-12-avg-2-chunk-16-left-64.onnx', 'joiner-epoch-12-avg-2-chunk-16-left-64.int8.onnx', 'encoder-epoch-12-avg-2-chunk-8-left-64.onnx', 'decoder-epoch-12-avg-2-chunk-8-left-64.onnx', 'joiner-epoch-12-avg-2-chunk-8-left-64.onnx', 'tokens.txt']) {
      writeFileSync(path.join(dir, f), 'x 1\n');
    }
    const j = (f: string): string => path.join(dir, f);
    rmSync(j('encoder-epoch-12-avg-2-chunk-16-left-64.onnx')); // chunk-16 only as int8 now
    expect(findTransducer(dir, name, true)).toEqual({ encoder: j('encoder-epoch-12-avg-2-chunk-16-left-64.int8.onnx'), decoder: j('decoder-epoch-12-avg-2-chunk-16-left-64.onnx'), joiner: j('joiner-epoch-12-avg-2-chunk-16-left-64.int8.onnx'), tokens: j('tokens.txt') });
    expect(findTransducer(dir, name, false)).toEqual({ encoder: j('encoder-epoch-12-avg-2-chunk-8-left-64.onnx'), decoder: j('decoder-epoch-12-avg-2-chunk-8-left-64.onnx'), joiner: j('joiner-epoch-12-avg-2-chunk-8-left-64.onnx'), tokens: j('tokens.txt') });
    const files = { encoder: j('encoder-epoch-12-avg-2-chunk-16-left-64.onnx'), decoder: j('decoder-epoch-12-avg-2-chunk-16-left-64.onnx'), joiner: j('joiner-epoch-12-avg-2-chunk-16-left-64.onnx'), tokens: j('tokens.txt') };
    expect(buildKeywordSpotterConfig(files, '/tmp/k.txt', { keywordsThreshold: 0.2 })).toEqual({
      featConfig: { sampleRate: 16000, featureDim: 80 },
      modelConfig: { transducer: { encoder: files.encoder, decoder: files.decoder, joiner: files.joiner }, tokens: files.tokens, numThreads: 1, provider: 'cpu', debug: 0 },
      maxActivePaths: 4,
      numTrailingBlanks: 1,
      keywordsScore: 1.0,
      keywordsThreshold: 0.2,
      keywordsFile: '/tmp/k.txt',
    });
  });
});
