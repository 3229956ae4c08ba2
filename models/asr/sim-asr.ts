import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../runtime/log.js';
import { decodeWav } from '../../drivers/wav.js';
import { ASR_SAMPLE_RATE, type AsrStream, type StreamingRecognizer } from './asr.js';

/**
 * Speech recognition for development machines, which have no Chinese ASR model. The simulated
 * microphone says which WAV it is playing; the transcript is the text file beside it
 * (`lesson.wav` → `lesson.txt`). Words appear as the speech in the WAV is played, in proportion,
 * so that partial results, barge-in and endpointing behave roughly as with a real recogniser.
 */
export interface SimAsrOptions {
  /** Silence after the last speech that counts as an endpoint (ms). */
  endpointMs?: number;
  log?: Logger;
}

interface Clip {
  transcript: string;
  /** Samples of the WAV (16 kHz) where speech begins and ends, and its length. */
  speechStart: number;
  speechEnd: number;
  length: number;
}

/** About -40 dBFS: quieter samples are taken for the silence around the speech. */
const SPEECH_LEVEL = 328;

export class SimAsrEngine implements StreamingRecognizer {
  readonly engine = 'simulator' as const;
  private readonly clips = new Map<string, Clip>();
  private readonly endpointSamples: number;

  constructor(private readonly opts: SimAsrOptions = {}) {
    this.endpointSamples = Math.round(((opts.endpointMs ?? 800) * ASR_SAMPLE_RATE) / 1000);
  }

  createStream(): AsrStream {
    return new SimAsrStream(this);
  }

  /** @internal The WAV and its transcript, read once per file. */
  clip(source: string): Clip {
    let clip = this.clips.get(source);
    if (!clip) {
      clip = readClip(source, this.opts.log);
      this.clips.set(source, clip);
    }
    return clip;
  }

  /** @internal */
  get endpointAfter(): number {
    return this.endpointSamples;
  }
}

class SimAsrStream implements AsrStream {
  /** Text of WAVs played earlier in this utterance. */
  private committed = '';
  private source: string | undefined;
  private accepted = 0;
  private finished = false;

  constructor(private readonly engine: SimAsrEngine) {}

  accept(samples: Int16Array, source?: string): void {
    if (this.finished) return;
    if (source !== this.source) {
      if (this.source !== undefined) this.committed = joinText(this.committed, this.engine.clip(this.source).transcript);
      this.source = source;
      this.accepted = 0;
    }
    this.accepted += samples.length;
  }

  partial(): string {
    if (this.source === undefined) return this.committed;
    const clip = this.engine.clip(this.source);
    const chars = [...clip.transcript];
    const span = Math.max(1, clip.speechEnd - clip.speechStart);
    const share = Math.min(1, Math.max(0, (this.accepted - clip.speechStart) / span));
    return joinText(this.committed, chars.slice(0, Math.round(chars.length * share)).join('').trim());
  }

  isEndpoint(): boolean {
    if (this.source === undefined) return false;
    const clip = this.engine.clip(this.source);
    if (clip.speechEnd <= clip.speechStart) return this.accepted >= clip.length;
    return this.accepted >= Math.min(clip.speechEnd + this.engine.endpointAfter, clip.length);
  }

  async finish(): Promise<string> {
    this.finished = true;
    if (this.source === undefined) return this.committed;
    return joinText(this.committed, this.engine.clip(this.source).transcript);
  }
}

function readClip(source: string, log?: Logger): Clip {
  const txt = path.join(path.dirname(source), `${path.basename(source, path.extname(source))}.txt`);
  let transcript = '';
  try {
    transcript = readFileSync(txt, 'utf8').trim();
  } catch {
    // Only the file name: the transcript is what a child said.
    log?.debug({ file: path.basename(txt) }, 'no transcript beside the simulated recording');
  }
  let length = 0;
  let speechStart = 0;
  let speechEnd = 0;
  try {
    const pcm = decodeWav(readFileSync(source), source);
    const scale = pcm.sampleRate / ASR_SAMPLE_RATE;
    length = Math.round(pcm.samples.length / scale);
    let first = -1;
    let last = -1;
    for (let i = 0; i < pcm.samples.length; i++) {
      if (Math.abs(pcm.samples[i] as number) > SPEECH_LEVEL) {
        if (first < 0) first = i;
        last = i;
      }
    }
    if (first >= 0) {
      speechStart = Math.round(first / scale);
      speechEnd = Math.round((last + 1) / scale);
    }
  } catch {
    log?.debug({ file: path.basename(source) }, 'simulated recording unreadable; its transcript is revealed at once');
  }
  return { transcript, speechStart, speechEnd, length };
}

function joinText(a: string, b: string): string {
  if (!a) return b;
  if (!b) return a;
  return /[\p{Script=Han}\p{P}]$/u.test(a) || /^[\p{Script=Han}\p{P}]/u.test(b) ? a + b : `${a} ${b}`;
}
