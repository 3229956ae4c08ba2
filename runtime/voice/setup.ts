import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Drivers } from '../../drivers/index.js';
import { modelsDirOf } from '../../models/manifest.js';
import type { LampConfig } from '../config/schema.js';
import { isLampError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AsrPort, KwsPort, TtsPort, VadPort } from './ports.js';

export interface VoiceStack {
  vad?: VadPort;
  asr?: AsrPort;
  kws?: KwsPort;
  tts?: TtsPort;
  /** What is missing and what the lamp does without it, for health and the log. */
  degraded: string[];
}

/** Sentences short enough and general enough to be the lamp's fixed phrases; only these are cached on disk. */
export function isFixedPhrase(text: string): boolean {
  return [...text].length <= 16 && !/\d/.test(text);
}

function why(err: unknown): string {
  return isLampError(err) ? err.message : err instanceof Error ? err.message : String(err);
}

function hasEspeak(): boolean {
  try {
    execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads every speech model the configuration names, each on its own: a missing or broken one
 * is noted (and shown in health and doctor) and the lamp runs without it. VAD: Silero. ASR:
 * the streaming zipformer, else — with the simulated microphone only — the simulator engine
 * that reads transcripts beside WAV files. Wake word: KWS model or push-to-talk only. Voice:
 * a sherpa TTS model, else espeak-ng, else none (replies are still shown).
 */
export async function loadVoiceStack(config: LampConfig, drivers: Drivers, log: Logger): Promise<VoiceStack> {
  const modelsDir = modelsDirOf(config);
  const degraded: string[] = [];
  const stack: VoiceStack = { degraded };

  if (drivers.microphone) {
    try {
      const { VoiceActivityDetector } = await import('../../models/vad/vad.js');
      const vad = await VoiceActivityDetector.load({ modelsDir, preset: 'chat' });
      stack.vad = { accept: (s) => vad.accept(s), setPreset: (p) => vad.setPreset(p), reset: () => vad.reset() };
    } catch (err) {
      degraded.push(`no VAD (${why(err)}): the lamp cannot tell when the child has finished speaking, so it does not listen`);
    }
    try {
      const { SherpaRecognizer } = await import('../../models/asr/index.js');
      stack.asr = await SherpaRecognizer.load({ modelsDir, name: config.voice.asrModel });
    } catch (err) {
      if (drivers.microphone.binding === 'simulator') {
        const { SimAsrEngine } = await import('../../models/asr/index.js');
        stack.asr = new SimAsrEngine({ log });
        degraded.push(`no speech recognition model (${why(err)}): the simulator engine reads the transcript beside each WAV file`);
      } else degraded.push(`no speech recognition model (${why(err)}): the lamp cannot understand speech; typed text and the page still work`);
    }
    try {
      const { KeywordSpotter } = await import('../../models/kws/index.js');
      const kws = await KeywordSpotter.load({ modelsDir, name: config.voice.kwsModel, keywords: config.voice.wakeWords });
      stack.kws = { accept: (s) => kws.accept(s) };
    } catch (err) {
      degraded.push(`no wake word model (${why(err)}): push-to-talk only`);
    }
  }

  if (drivers.speaker) {
    const tts = await import('../../models/tts/index.js');
    let engine: import('../../models/tts/index.js').TextToSpeech | undefined;
    try {
      engine = await tts.SherpaTts.load({ modelsDir, name: config.voice.ttsModel });
    } catch (err) {
      if (hasEspeak()) {
        engine = new tts.EspeakTts();
        degraded.push(`no neural voice (${why(err)}): speaking with espeak-ng`);
      } else degraded.push(`no voice at all (${why(err)}; espeak-ng is not installed): replies are shown, not spoken`);
    }
    if (engine) {
      const plain = engine;
      const cached = config.voice.phraseCache ? new tts.PhraseCache(path.join(path.resolve(config.dataDir), 'tts-cache'), log).wrap(plain) : plain;
      // The neural Chinese voices cannot read English: English sentences go to espeak-ng.
      const english = plain.engine === 'sherpa' && hasEspeak() ? new tts.EspeakTts() : undefined;
      const pick = (s: string): typeof plain => (english && tts.detectLang(s) === 'en' ? english : isFixedPhrase(s) ? cached : plain);
      const router: typeof plain = { engine: plain.engine, voice: plain.voice, synthesize: (s, o) => pick(s).synthesize(s, o) };
      stack.tts = { engine: plain.engine, stream: (text) => tts.speakStream(router, text) };
    }
  }
  for (const d of degraded) log.warn(d);
  return stack;
}
