import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, LampError, toLampError } from '../../runtime/errors.js';
import type { Pcm } from '../../drivers/wav.js';
import { float32ToInt16 } from '../audio/pcm.js';
import { findModelFile, requireModelDir, requireModelFile } from '../audio/model-files.js';
import { loadSherpa, type SherpaOfflineTts } from '../audio/sherpa.js';
import type { SynthesizeOptions, TextToSpeech } from './tts.js';

/** The files of a Chinese neural voice as sherpa-onnx needs them. */
export interface SherpaTtsFiles {
  kind: 'vits' | 'matcha';
  /** VITS: the model; Matcha: the acoustic model. */
  model: string;
  /** Matcha only: the vocoder (vocos-22khz-univ.onnx or hifigan_v2.onnx). */
  vocoder?: string;
  lexicon: string;
  tokens: string;
  /** jieba dictionary directory, when the model ships one. */
  dictDir?: string;
  /** Text normalisation rules (dates, numbers, phone numbers) shipped with the model. */
  ruleFsts: string[];
}

export interface SherpaTtsLoadOptions {
  modelsDir: string;
  /** Directory under modelsDir, e.g. "vits-zh-hf-fanchen-c" or "matcha-icefall-zh-baker". */
  name: string;
  /** Speaker of a multi-speaker model. */
  speakerId?: number;
  /** 1.0 is the model's pace; children follow a little slower speech more easily. */
  speed?: number;
  numThreads?: number;
}

const MATCHA_MODEL = /^model-steps-\d+\.onnx$/;
const VOCODER = /^(vocos|hifigan).*\.onnx$/;
const RULE_FSTS = ['phone.fst', 'date.fst', 'number.fst'];

/**
 * Finds a VITS or Matcha voice's files in its directory and checks each, so that a missing one
 * is reported by name rather than by sherpa's "Please check your config!". A Matcha model's
 * vocoder is released separately: it is looked for beside the model, then in the models
 * directory itself, then in a directory of its own there.
 */
export function findSherpaTtsFiles(modelsDir: string, name: string): SherpaTtsFiles {
  const dir = requireModelDir(path.join(modelsDir, name), name);
  const names = readdirSync(dir);
  const lexicon = requireModelFile(path.join(dir, 'lexicon.txt'), name);
  const tokens = requireModelFile(path.join(dir, 'tokens.txt'), name);
  const dict = path.join(dir, 'dict');
  const dictDir = existsSync(dict) && statSync(dict).isDirectory() ? dict : undefined;
  const ruleFsts = RULE_FSTS.map((f) => path.join(dir, f)).filter((f) => existsSync(f));
  if (names.some((n) => MATCHA_MODEL.test(n))) {
    const model = findModelFile(dir, name, MATCHA_MODEL, 'model-steps-*.onnx');
    const vocoder = findVocoder([dir, modelsDir, ...vocoderDirs(modelsDir)]);
    if (!vocoder) {
      throw new LampError(ErrorCode.MODEL_MISSING, `model ${name}: no vocoder (vocos-22khz-univ.onnx) beside it or in ${modelsDir}`, { model: name, file: path.join(modelsDir, 'vocos-22khz-univ.onnx') });
    }
    return { kind: 'matcha', model, vocoder: requireModelFile(vocoder, name), lexicon, tokens, ...(dictDir ? { dictDir } : {}), ruleFsts };
  }
  const model = findModelFile(dir, name, /^(?!vocos|hifigan).*\.onnx$/, '<voice>.onnx');
  return { kind: 'vits', model, lexicon, tokens, ...(dictDir ? { dictDir } : {}), ruleFsts };
}

/** sherpa-onnx's OfflineTts configuration for these files (pure, so that it can be tested without a model). */
export function buildOfflineTtsConfig(files: SherpaTtsFiles, opts: { numThreads?: number } = {}): Record<string, unknown> {
  const common = { lexicon: files.lexicon, tokens: files.tokens, ...(files.dictDir ? { dictDir: files.dictDir } : {}) };
  const model =
    files.kind === 'matcha'
      ? { matcha: { acousticModel: files.model, vocoder: files.vocoder, ...common } }
      : { vits: { model: files.model, ...common } };
  return {
    model: { ...model, numThreads: opts.numThreads ?? 1, provider: 'cpu', debug: false },
    // One sentence per call: speakStream already hands over sentence-sized pieces.
    maxNumSentences: 1,
    ...(files.ruleFsts.length ? { ruleFsts: files.ruleFsts.join(',') } : {}),
  };
}

/** A Chinese neural voice (VITS or Matcha) through sherpa-onnx, synthesising off the main thread. */
export class SherpaTts implements TextToSpeech {
  readonly engine = 'sherpa' as const;
  readonly voice: string;
  /** Calls run one after another: one native model, one synthesis at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly tts: SherpaOfflineTts,
    name: string,
    private readonly speakerId: number,
    private readonly speed: number,
  ) {
    this.voice = `${name}#${speakerId}@${speed}`;
  }

  static async load(opts: SherpaTtsLoadOptions): Promise<SherpaTts> {
    const files = findSherpaTtsFiles(opts.modelsDir, opts.name);
    const sherpa = await loadSherpa();
    let tts: SherpaOfflineTts;
    try {
      tts = await sherpa.OfflineTts.createAsync(buildOfflineTtsConfig(files, opts));
    } catch (err) {
      throw toLampError(err, ErrorCode.MODEL_LOAD_FAILED, `model ${opts.name}: sherpa could not load the voice`, { model: opts.name });
    }
    const speakerId = opts.speakerId ?? 0;
    if (speakerId < 0 || (tts.numSpeakers > 0 && speakerId >= tts.numSpeakers)) {
      throw new LampError(ErrorCode.CONFIG_INVALID, `model ${opts.name} has ${tts.numSpeakers} speakers; speaker ${speakerId} does not exist`, { model: opts.name });
    }
    return new SherpaTts(tts, opts.name, speakerId, opts.speed ?? 0.9);
  }

  get sampleRate(): number {
    return this.tts.sampleRate;
  }

  synthesize(text: string, _opts: SynthesizeOptions = {}): Promise<Pcm> {
    const run = async (): Promise<Pcm> => {
      const audio = await this.tts.generateAsync({ text, sid: this.speakerId, speed: this.speed, enableExternalBuffer: false });
      return { sampleRate: audio.sampleRate, samples: float32ToInt16(audio.samples) };
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

function findVocoder(dirs: string[]): string | undefined {
  for (const d of dirs) {
    if (!existsSync(d) || !statSync(d).isDirectory()) continue;
    const hit = readdirSync(d)
      .filter((n) => VOCODER.test(n))
      .sort()[0];
    if (hit) return path.join(d, hit);
  }
  return undefined;
}

function vocoderDirs(modelsDir: string): string[] {
  if (!existsSync(modelsDir)) return [];
  return readdirSync(modelsDir)
    .filter((n) => /^(vocos|hifigan)/.test(n))
    .map((n) => path.join(modelsDir, n));
}
