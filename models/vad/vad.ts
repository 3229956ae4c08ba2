import { statSync } from 'node:fs';
import { ErrorCode, LampError, toLampError } from '../../runtime/errors.js';
import { loadManifest, locateModelFile, sha256File, type ModelEntry } from '../manifest.js';
import { int16ToFloat32 } from '../audio/pcm.js';
import { loadSherpa, type SherpaModule, type SherpaVad } from '../audio/sherpa.js';

/**
 * Voice activity detection over Silero VAD (through sherpa-onnx's `Vad`), on the 16 kHz mono
 * microphone stream. It turns arbitrary chunks of audio into two kinds of event: speech started
 * (as soon as the model is sure, so the lamp can stop talking and start listening) and speech
 * ended (with the utterance's samples for recognisers that want the whole segment).
 */

export const VAD_SAMPLE_RATE = 16_000;
/** Silero v5 at 16 kHz takes windows of 512 samples (32 ms). */
export const VAD_WINDOW = 512;

export interface VadOptions {
  /** Speech probability above which a window counts as speech (0..1). */
  threshold: number;
  /** Silence that ends an utterance. */
  minSilenceMs: number;
  /** Speech shorter than this is not an utterance (a cough, a click). */
  minSpeechMs: number;
  /**
   * Past this length sherpa closes the utterance at the next short pause (it lowers the silence
   * needed to 100 ms and raises the threshold to 0.9), so a very long turn still gets cut.
   */
  maxSpeechMs: number;
}

/**
 * Per scene. Chat: a child's turn ends after a short pause, so the answer comes quickly.
 * Recite: children pause to remember the next line; a long pause must not end the recitation.
 */
export const VAD_PRESETS = {
  chat: { threshold: 0.5, minSilenceMs: 600, minSpeechMs: 250, maxSpeechMs: 20_000 },
  recite: { threshold: 0.5, minSilenceMs: 1500, minSpeechMs: 250, maxSpeechMs: 90_000 },
} as const satisfies Record<string, VadOptions>;

export type VadPresetName = keyof typeof VAD_PRESETS;

export type VadEvent =
  | {
      type: 'speech_start';
      /** Estimated start of the speech, ms of the stream since the detector was created. */
      atMs: number;
      /** Stream time at which the model became sure (atMs + about the minimum speech length + a window). */
      detectedAtMs: number;
    }
  | {
      type: 'speech_end';
      startMs: number;
      endMs: number;
      /** The utterance, float in [-1, 1), 16 kHz. */
      samples: Float32Array;
    };

export interface VadLoadOptions {
  /** The model directory of the device (e.g. /var/lib/lamp/models); the npm copy is used when absent there. */
  modelsDir: string;
  preset?: VadPresetName | VadOptions;
  /** The manifest's entries; read from models/manifest.json when not given. */
  manifest?: ModelEntry[];
}

const MODEL_NAME = 'silero-vad';
/** sherpa keeps sample positions in int32: restart its count well before that wraps (37 h at 16 kHz). */
const RESTART_AFTER_SAMPLES = VAD_SAMPLE_RATE * 3600;

export class VoiceActivityDetector {
  private vad: SherpaVad;
  private opts: VadOptions;
  /** Samples not yet handed to sherpa (fewer than one window). */
  private pending = new Float32Array(VAD_WINDOW);
  private pendingLength = 0;
  /** Stream samples seen so far (all chunks). */
  private streamSamples = 0;
  /** Stream position of sherpa's sample 0 (moves when the sherpa detector is rebuilt or restarted). */
  private base = 0;
  /** Samples handed to the current sherpa detector. */
  private fed = 0;
  private speaking = false;
  /** End of the last utterance, so a new start is never reported before it. */
  private lastEndSample = 0;

  private constructor(
    private readonly sherpa: SherpaModule,
    private readonly modelFile: string,
    opts: VadOptions,
  ) {
    this.opts = { ...opts };
    this.vad = this.build();
  }

  /** Finds silero_vad.onnx (device model directory, then npm), checks it and builds the detector. */
  static async load(opts: VadLoadOptions): Promise<VoiceActivityDetector> {
    const manifest = opts.manifest ?? loadManifest();
    const entry = manifest.find((m) => m.name === MODEL_NAME);
    const file = entry?.files[0];
    if (!entry || !file) throw new LampError(ErrorCode.MODEL_MANIFEST_INVALID, `the model manifest has no ${MODEL_NAME} entry`);
    const at = locateModelFile(opts.modelsDir, entry, file);
    if (!at) {
      throw new LampError(ErrorCode.MODEL_MISSING, `model ${MODEL_NAME}: ${file.path} is neither in ${opts.modelsDir}/${MODEL_NAME} nor in node_modules/${file.npm ?? ''}`, { model: MODEL_NAME, file: file.path });
    }
    // A wrong file makes sherpa end the process ("Unsupported silero vad model"), so it is checked
    // in full; 2.3 MB hashes in a few milliseconds.
    const bytes = statSync(at).size;
    if (bytes !== file.bytes || sha256File(at) !== file.sha256) {
      throw new LampError(ErrorCode.MODEL_CORRUPT, `model ${MODEL_NAME}: ${at} does not match the manifest (${bytes} bytes, expected ${file.bytes})`, { model: MODEL_NAME, file: at });
    }
    const sherpa = await loadSherpa();
    return new VoiceActivityDetector(sherpa, at, resolvePreset(opts.preset ?? 'chat'));
  }

  get options(): Readonly<VadOptions> {
    return this.opts;
  }

  /** Whether an utterance is in progress (speech_start given, speech_end not yet). */
  get speechStarted(): boolean {
    return this.speaking;
  }

  /** Milliseconds of audio accepted since creation. */
  get streamMs(): number {
    return samplesToMs(this.streamSamples);
  }

  /** Feeds any number of 16 kHz samples; returns what happened, in order. */
  accept(samples: Int16Array): VadEvent[] {
    const events: VadEvent[] = [];
    const f = int16ToFloat32(samples);
    let i = 0;
    while (i < f.length) {
      const take = Math.min(VAD_WINDOW - this.pendingLength, f.length - i);
      this.pending.set(f.subarray(i, i + take), this.pendingLength);
      this.pendingLength += take;
      i += take;
      this.streamSamples += take;
      if (this.pendingLength === VAD_WINDOW) {
        this.pendingLength = 0;
        this.feedWindow(this.pending, events);
      }
    }
    return events;
  }

  /**
   * Switches to another scene's settings. sherpa fixes them at construction, so the detector is
   * rebuilt (about as costly as a few windows of inference); an utterance in progress is ended
   * first and returned rather than lost.
   */
  setPreset(preset: VadPresetName | VadOptions): VadEvent[] {
    const next = resolvePreset(preset);
    if (sameOptions(next, this.opts)) return [];
    const events = this.flush();
    this.opts = { ...next };
    this.vad = this.build();
    return events;
  }

  /** Ends an utterance in progress now (end of a push-to-talk, the microphone closing). */
  flush(): VadEvent[] {
    const events: VadEvent[] = [];
    if (this.pendingLength > 0) {
      // The last partial window, padded with silence so sherpa sees it.
      const last = new Float32Array(VAD_WINDOW);
      last.set(this.pending.subarray(0, this.pendingLength));
      this.pendingLength = 0;
      this.feedWindow(last, events);
    }
    this.vad.flush();
    this.drain(events);
    this.speaking = false;
    // sherpa's flush leaves silero "triggered"; the next utterance must start from a clean state.
    this.restart();
    return events;
  }

  /** Forgets everything in progress; the stream clock keeps running. */
  reset(): void {
    this.pendingLength = 0;
    this.speaking = false;
    this.restart();
  }

  /** A fresh sherpa state whose sample 0 is the current stream position. */
  private restart(): void {
    this.vad.reset();
    this.base = this.streamSamples;
    this.fed = 0;
  }

  private build(): SherpaVad {
    const o = this.opts;
    try {
      return new this.sherpa.Vad(
        {
          sileroVad: {
            model: this.modelFile,
            threshold: o.threshold,
            minSilenceDuration: o.minSilenceMs / 1000,
            minSpeechDuration: o.minSpeechMs / 1000,
            maxSpeechDuration: o.maxSpeechMs / 1000,
            windowSize: VAD_WINDOW,
          },
          sampleRate: VAD_SAMPLE_RATE,
          numThreads: 1,
          provider: 'cpu',
          debug: false,
        },
        // The buffer must hold the longest utterance plus the silence that ends it.
        Math.ceil(o.maxSpeechMs / 1000 + o.minSilenceMs / 1000 + 10),
      );
    } catch (err) {
      throw toLampError(err, ErrorCode.MODEL_LOAD_FAILED, `model ${MODEL_NAME}: sherpa could not build the detector`, { model: MODEL_NAME, file: this.modelFile });
    }
  }

  private feedWindow(window: Float32Array, events: VadEvent[]): void {
    // sherpa copies the samples; the pending buffer can be reused right after.
    this.vad.acceptWaveform(window);
    this.fed += VAD_WINDOW;
    if (!this.speaking && this.vad.isDetected()) {
      this.speaking = true;
      // Where sherpa will say the segment starts: silero needs minSpeech of speech to be sure, and
      // sherpa keeps two (overlapping, 576-sample) windows before that. Its buffer lags the
      // samples fed by one window (the first window waits for its 64-sample overlap).
      const tail = this.fed - VAD_WINDOW;
      const minSpeech = Math.floor((VAD_SAMPLE_RATE * this.opts.minSpeechMs) / 1000);
      const start = Math.max(this.base + tail - 2 * (VAD_WINDOW + 64) - minSpeech, this.base, this.lastEndSample);
      events.push({ type: 'speech_start', atMs: samplesToMs(start), detectedAtMs: samplesToMs(Math.min(this.base + this.fed, this.streamSamples)) });
    }
    this.drain(events);
    if (!this.speaking && this.fed >= RESTART_AFTER_SAMPLES && this.pendingLength === 0) this.restart();
  }

  private drain(events: VadEvent[]): void {
    while (!this.vad.isEmpty()) {
      // Copied out of sherpa's memory: the segment outlives pop().
      const seg = this.vad.front(false);
      this.vad.pop();
      const startSample = this.base + seg.start;
      const endSample = startSample + seg.samples.length;
      if (!this.speaking) {
        // Only possible after flush() of speech too short to have been reported; report both ends.
        events.push({ type: 'speech_start', atMs: samplesToMs(startSample), detectedAtMs: samplesToMs(Math.min(this.base + this.fed, this.streamSamples)) });
      }
      this.speaking = false;
      this.lastEndSample = endSample;
      events.push({ type: 'speech_end', startMs: samplesToMs(startSample), endMs: samplesToMs(endSample), samples: new Float32Array(seg.samples) });
    }
    if (this.speaking && !this.vad.isDetected() && this.vad.isEmpty()) {
      // sherpa dropped the utterance without a segment (cannot happen with silero today); keep
      // start/end pairs balanced for the listener anyway.
      this.speaking = false;
    }
  }
}

export function resolvePreset(preset: VadPresetName | VadOptions): VadOptions {
  if (typeof preset === 'string') {
    const p = VAD_PRESETS[preset] as VadOptions | undefined;
    if (!p) throw new LampError(ErrorCode.CONFIG_INVALID, `unknown VAD preset ${String(preset)}`, { preset });
    return { ...p };
  }
  const { threshold, minSilenceMs, minSpeechMs, maxSpeechMs } = preset;
  const bad = [
    !(threshold > 0 && threshold < 1) && 'threshold must be between 0 and 1',
    !(minSilenceMs > 0) && 'minSilenceMs must be positive',
    !(minSpeechMs > 0) && 'minSpeechMs must be positive',
    !(maxSpeechMs > minSpeechMs) && 'maxSpeechMs must exceed minSpeechMs',
  ].filter((x): x is string => typeof x === 'string');
  if (bad.length) throw new LampError(ErrorCode.CONFIG_INVALID, `VAD options: ${bad.join('; ')}`, { preset });
  return { threshold, minSilenceMs, minSpeechMs, maxSpeechMs };
}

function sameOptions(a: VadOptions, b: VadOptions): boolean {
  return a.threshold === b.threshold && a.minSilenceMs === b.minSilenceMs && a.minSpeechMs === b.minSpeechMs && a.maxSpeechMs === b.maxSpeechMs;
}

function samplesToMs(samples: number): number {
  return Math.round((samples * 1000) / VAD_SAMPLE_RATE);
}
