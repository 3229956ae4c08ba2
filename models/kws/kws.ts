import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ErrorCode, toLampError } from '../../runtime/errors.js';
import { int16ToFloat32 } from '../audio/pcm.js';
import { findTransducer, type TransducerFiles } from '../audio/model-files.js';
import { loadSherpa, type SherpaKeywordSpotter, type SherpaOnlineStream } from '../audio/sherpa.js';
import { keywordsToTokens, parseTokens } from './tokens.js';

export const KWS_SAMPLE_RATE = 16_000;

export interface KeywordSpotterOptions {
  modelsDir: string;
  /** Directory under modelsDir, e.g. "sherpa-onnx-kws-zipformer-wenetspeech-3.3m-2024-01-01". */
  name: string;
  /** Wake words in Chinese characters, e.g. ['小灯小灯']. */
  keywords: string[];
  /** Boost for paths through a keyword; higher wakes more easily. */
  keywordsScore?: number;
  /** Probability a keyword must reach; lower wakes more easily (and more falsely). */
  keywordsThreshold?: number;
  numThreads?: number;
  /** Use the int8 encoder and joiner when present. Default false: the model is tiny anyway. */
  int8?: boolean;
}

/** sherpa-onnx's KeywordSpotter configuration (pure, testable without a model). */
export function buildKeywordSpotterConfig(files: TransducerFiles, keywordsFile: string, opts: Pick<KeywordSpotterOptions, 'keywordsScore' | 'keywordsThreshold' | 'numThreads'> = {}): Record<string, unknown> {
  return {
    featConfig: { sampleRate: KWS_SAMPLE_RATE, featureDim: 80 },
    modelConfig: {
      transducer: { encoder: files.encoder, decoder: files.decoder, joiner: files.joiner },
      tokens: files.tokens,
      numThreads: opts.numThreads ?? 1,
      provider: 'cpu',
      debug: 0,
    },
    maxActivePaths: 4,
    numTrailingBlanks: 1,
    keywordsScore: opts.keywordsScore ?? 1.0,
    keywordsThreshold: opts.keywordsThreshold ?? 0.25,
    keywordsFile,
  };
}

/**
 * Wake-word spotting over sherpa-onnx's open-vocabulary keyword spotter. Without the model the
 * load fails with MODEL_MISSING and the lamp listens on push-to-talk only.
 */
export class KeywordSpotter {
  private stream: SherpaOnlineStream;

  private constructor(
    private readonly kws: SherpaKeywordSpotter,
    readonly keywords: readonly string[],
  ) {
    this.stream = kws.createStream();
  }

  static async load(opts: KeywordSpotterOptions): Promise<KeywordSpotter> {
    const files = findTransducer(path.join(opts.modelsDir, opts.name), opts.name, opts.int8 ?? false);
    const lines = keywordsToTokens(opts.keywords, parseTokens(readFileSync(files.tokens, 'utf8')));
    const sherpa = await loadSherpa();
    // sherpa reads the keywords from a file at construction; it is not needed afterwards.
    const dir = mkdtempSync(path.join(tmpdir(), 'lamp-kws-'));
    const keywordsFile = path.join(dir, 'keywords.txt');
    try {
      writeFileSync(keywordsFile, lines.join('\n') + '\n', 'utf8');
      const kws = new sherpa.KeywordSpotter(buildKeywordSpotterConfig(files, keywordsFile, opts));
      return new KeywordSpotter(kws, opts.keywords);
    } catch (err) {
      throw toLampError(err, ErrorCode.MODEL_LOAD_FAILED, `model ${opts.name}: sherpa could not load the keyword spotter`, { model: opts.name });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Feeds 16 kHz samples; returns the keyword (as given, e.g. "小灯小灯") when it was just spoken. */
  accept(samples: Int16Array): string | undefined {
    this.stream.acceptWaveform({ samples: int16ToFloat32(samples), sampleRate: KWS_SAMPLE_RATE });
    let found: string | undefined;
    while (this.kws.isReady(this.stream)) {
      this.kws.decode(this.stream);
      const keyword = this.kws.getResult(this.stream).keyword;
      if (keyword) {
        found ??= keyword;
        // Without a reset the same keyword would be reported again on the next frames.
        this.kws.reset(this.stream);
      }
    }
    return found;
  }

  /** Starts over (after the lamp's own speech, which must not wake it). */
  reset(): void {
    this.stream = this.kws.createStream();
  }
}
