import path from 'node:path';
import { ErrorCode, LampError, toLampError } from '../../runtime/errors.js';
import { int16ToFloat32 } from '../audio/pcm.js';
import { findTransducer, type TransducerFiles } from '../audio/model-files.js';
import { loadSherpa, type SherpaOnlineRecognizer, type SherpaOnlineStream } from '../audio/sherpa.js';
import { ASR_SAMPLE_RATE, type AsrStream, type StreamingRecognizer } from './asr.js';

export type { TransducerFiles };

export interface EndpointRules {
  /** Trailing silence that ends an utterance in which nothing was recognised yet (s). */
  rule1MinTrailingSilence: number;
  /** Trailing silence that ends an utterance after some words (s). */
  rule2MinTrailingSilence: number;
  /** Longest utterance, silence or not (s). */
  rule3MinUtteranceLength: number;
}

/** sherpa-onnx's defaults in its examples: generous enough for a child who hesitates. */
export const DEFAULT_ENDPOINT_RULES: EndpointRules = { rule1MinTrailingSilence: 2.4, rule2MinTrailingSilence: 1.2, rule3MinUtteranceLength: 20 };

export interface SherpaRecognizerOptions {
  modelsDir: string;
  /** Directory under modelsDir, e.g. "sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20". */
  name: string;
  /** Use the int8 encoder and joiner when present (less memory, faster on the board). Default true. */
  int8?: boolean;
  numThreads?: number;
  endpoint?: Partial<EndpointRules>;
}

/** The streaming zipformer's files in modelsDir/name, each checked (int8 encoder and joiner when present). */
export function findTransducerFiles(modelsDir: string, name: string, int8 = true): TransducerFiles {
  return findTransducer(path.join(modelsDir, name), name, int8);
}

/**
 * sherpa-onnx's OnlineRecognizer configuration. Deliberately without hotwords or any other
 * context biasing: in a recitation the lamp must hear what the child said, not what the text
 * says, so nothing may pull the recogniser toward the expected words.
 */
export function buildOnlineRecognizerConfig(files: TransducerFiles, opts: { numThreads?: number; endpoint?: Partial<EndpointRules> } = {}): Record<string, unknown> {
  const rules = { ...DEFAULT_ENDPOINT_RULES, ...opts.endpoint };
  return {
    featConfig: { sampleRate: ASR_SAMPLE_RATE, featureDim: 80 },
    modelConfig: {
      transducer: { encoder: files.encoder, decoder: files.decoder, joiner: files.joiner },
      tokens: files.tokens,
      numThreads: opts.numThreads ?? 1,
      provider: 'cpu',
      debug: 0,
    },
    decodingMethod: 'greedy_search',
    maxActivePaths: 4,
    enableEndpoint: true,
    rule1MinTrailingSilence: rules.rule1MinTrailingSilence,
    rule2MinTrailingSilence: rules.rule2MinTrailingSilence,
    rule3MinUtteranceLength: rules.rule3MinUtteranceLength,
  };
}

/** Streaming zipformer transducer through sherpa-onnx (e.g. the bilingual zh-en model). */
export class SherpaRecognizer implements StreamingRecognizer {
  readonly engine = 'sherpa' as const;

  private constructor(private readonly recognizer: SherpaOnlineRecognizer) {}

  static async load(opts: SherpaRecognizerOptions): Promise<SherpaRecognizer> {
    const files = findTransducerFiles(opts.modelsDir, opts.name, opts.int8 ?? true);
    const sherpa = await loadSherpa();
    try {
      return new SherpaRecognizer(new sherpa.OnlineRecognizer(buildOnlineRecognizerConfig(files, opts)));
    } catch (err) {
      throw toLampError(err, ErrorCode.MODEL_LOAD_FAILED, `model ${opts.name}: sherpa could not load the recogniser`, { model: opts.name });
    }
  }

  createStream(): AsrStream {
    return new SherpaAsrStream(this.recognizer, this.recognizer.createStream());
  }
}

/** Silence after the last word so that the model's right context sees the end of speech. */
const TAIL_PADDING = new Float32Array(Math.round(ASR_SAMPLE_RATE * 0.66));

class SherpaAsrStream implements AsrStream {
  private finished = false;

  constructor(
    private readonly recognizer: SherpaOnlineRecognizer,
    private readonly stream: SherpaOnlineStream,
  ) {}

  accept(samples: Int16Array): void {
    if (this.finished) throw new LampError(ErrorCode.INPUT_REJECTED, 'speech recognition stream already finished');
    this.stream.acceptWaveform({ samples: int16ToFloat32(samples), sampleRate: ASR_SAMPLE_RATE });
    this.decode();
  }

  partial(): string {
    return normalise(this.recognizer.getResult(this.stream).text);
  }

  isEndpoint(): boolean {
    return this.recognizer.isEndpoint(this.stream);
  }

  async finish(): Promise<string> {
    if (!this.finished) {
      this.finished = true;
      this.stream.acceptWaveform({ samples: TAIL_PADDING, sampleRate: ASR_SAMPLE_RATE });
      this.stream.inputFinished();
      this.decode();
    }
    return this.partial();
  }

  private decode(): void {
    while (this.recognizer.isReady(this.stream)) this.recognizer.decode(this.stream);
  }
}

/** The bilingual model writes English in capitals and may leave stray spaces. */
export function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
