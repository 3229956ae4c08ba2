/**
 * Streaming speech recognition, as the turn pipeline sees it: one stream per utterance, fed with
 * the microphone's 16 kHz chunks, asked for the words so far while the child is speaking and for
 * the final words at the end.
 */
export interface StreamingRecognizer {
  readonly engine: 'sherpa' | 'simulator';
  createStream(): AsrStream;
}

export interface AsrStream {
  /**
   * 16 kHz mono samples. `source` is where they come from when known: the simulated
   * microphone passes the WAV file it plays, which the simulator engine needs; real engines ignore it.
   */
  accept(samples: Int16Array, source?: string): void;
  /** The words recognised so far (may still change). */
  partial(): string;
  /** Whether the recogniser's own endpoint rules say the utterance is over. */
  isEndpoint(): boolean;
  /** Ends the utterance and returns the final text; the stream takes no more audio after this. */
  finish(): Promise<string>;
}

export const ASR_SAMPLE_RATE = 16_000;
