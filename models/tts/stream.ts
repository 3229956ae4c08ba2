import type { Pcm } from '../../drivers/wav.js';
import { splitSentences, type SplitOptions, type TextToSpeech, type TtsLang } from './tts.js';

export interface SpeakStreamOptions extends SplitOptions {
  /** One language for every sentence; otherwise each sentence's own is detected. */
  lang?: TtsLang;
  /** Stops synthesising more sentences (the child interrupted). */
  signal?: AbortSignal;
}

/**
 * Speaks long text sentence by sentence: the first sentence's audio is ready after one short
 * synthesis instead of after the whole answer, and while the speaker plays sentence k the engine
 * is already making sentence k+1. Only one synthesis runs at a time (the board has two cores and
 * the rest of the turn needs one).
 */
export async function* speakStream(tts: TextToSpeech, text: string, opts: SpeakStreamOptions = {}): AsyncGenerator<Pcm, void, undefined> {
  const sentences = splitSentences(text, opts);
  const synth = (s: string): Promise<Pcm> => tts.synthesize(s, opts.lang ? { lang: opts.lang } : {});
  let next: Promise<Pcm> | undefined = sentences[0] !== undefined ? synth(sentences[0]) : undefined;
  try {
    for (let k = 0; k < sentences.length && next; k++) {
      const pcm = await next;
      next = undefined;
      if (opts.signal?.aborted) return;
      const following = sentences[k + 1];
      if (following !== undefined) next = synth(following);
      yield pcm;
    }
  } finally {
    // The consumer stopped early: the sentence being made is not wanted, and its failure must
    // not surface as an unhandled rejection.
    next?.catch(() => undefined);
  }
}
