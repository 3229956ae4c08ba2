import { ErrorCode, LampError } from '../../runtime/errors.js';

/**
 * The parts of sherpa-onnx-node (1.13.x) the speech models use, typed by hand: the package ships
 * no declarations. Loaded on first use, so that a board whose native addon is broken still gets
 * espeak-ng speech and typed input instead of failing at import time.
 */

export interface SherpaSpeechSegment {
  /** Index of the first sample, counted from the detector's creation or last reset. */
  start: number;
  samples: Float32Array;
}

export interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  isDetected(): boolean;
  pop(): void;
  front(enableExternalBuffer?: boolean): SherpaSpeechSegment;
  reset(): void;
  flush(): void;
  clear(): void;
}

export interface SherpaOnlineStream {
  acceptWaveform(obj: { samples: Float32Array; sampleRate: number }): void;
  inputFinished(): void;
}

export interface SherpaOnlineResult {
  text: string;
  tokens?: string[];
  is_final?: boolean;
}

export interface SherpaOnlineRecognizer {
  createStream(): SherpaOnlineStream;
  isReady(stream: SherpaOnlineStream): boolean;
  decode(stream: SherpaOnlineStream): void;
  isEndpoint(stream: SherpaOnlineStream): boolean;
  reset(stream: SherpaOnlineStream): void;
  getResult(stream: SherpaOnlineStream): SherpaOnlineResult;
}

export interface SherpaKeywordResult {
  keyword: string;
  start_time?: number;
  tokens?: string[];
}

export interface SherpaKeywordSpotter {
  createStream(): SherpaOnlineStream;
  isReady(stream: SherpaOnlineStream): boolean;
  decode(stream: SherpaOnlineStream): void;
  reset(stream: SherpaOnlineStream): void;
  getResult(stream: SherpaOnlineStream): SherpaKeywordResult;
}

export interface SherpaGeneratedAudio {
  samples: Float32Array;
  sampleRate: number;
}

export interface SherpaOfflineTts {
  readonly sampleRate: number;
  readonly numSpeakers: number;
  generateAsync(req: { text: string; sid: number; speed: number; enableExternalBuffer?: boolean }): Promise<SherpaGeneratedAudio>;
}

export interface SherpaModule {
  Vad: new (config: object, bufferSizeInSeconds: number) => SherpaVad;
  OnlineRecognizer: new (config: object) => SherpaOnlineRecognizer;
  KeywordSpotter: new (config: object) => SherpaKeywordSpotter;
  OfflineTts: { createAsync(config: object): Promise<SherpaOfflineTts> };
  version?: string;
}

let loaded: Promise<SherpaModule> | undefined;

export function loadSherpa(): Promise<SherpaModule> {
  loaded ??= (async () => {
    // A variable specifier: the package has no type declarations, and its CommonJS exports are
    // reachable from ESM only as the default export.
    const specifier = 'sherpa-onnx-node';
    try {
      const mod = (await import(specifier)) as { default: SherpaModule };
      return mod.default;
    } catch (err) {
      loaded = undefined;
      throw new LampError(ErrorCode.MODEL_LOAD_FAILED, `sherpa-onnx-node cannot be loaded: ${(err as Error).message}`, {}, { cause: err });
    }
  })();
  return loaded;
}
