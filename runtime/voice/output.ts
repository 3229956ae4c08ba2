import type { Speaker } from '../../drivers/speaker/speaker.js';
import type { Logger } from '../log.js';
import type { TtsPort } from './ports.js';

export interface Spoken {
  /** Stopped by an interruption or by newer speech. */
  stopped: boolean;
  /** performance.now() when the first sentence started playing. */
  firstAudioAt?: number;
}

/**
 * The lamp's voice: text → TTS sentence by sentence → speaker. New speech replaces what is
 * playing; `stop()` (a button press, the wake word) ends playback at once and drops the
 * sentences not yet played.
 */
export class SpeechOutput {
  private generation = 0;
  private active = 0;

  constructor(private readonly speaker: Speaker, private readonly tts: TtsPort, private readonly log: Logger) {}

  get speaking(): boolean {
    return this.active > 0;
  }

  get engine(): string {
    return this.tts.engine;
  }

  /** Speaks `text`; `onFirstAudio` is called as the first sentence starts playing. */
  async say(text: string, onFirstAudio?: (at: number) => void): Promise<Spoken> {
    this.stop();
    const mine = ++this.generation;
    this.active++;
    let firstAudioAt: number | undefined;
    try {
      for await (const pcm of this.tts.stream(text)) {
        if (mine !== this.generation) return { stopped: true, firstAudioAt };
        if (firstAudioAt === undefined) {
          firstAudioAt = performance.now();
          onFirstAudio?.(firstAudioAt);
        }
        const played = await this.speaker.play(pcm);
        if (played.stopped || mine !== this.generation) return { stopped: true, firstAudioAt };
      }
      return { stopped: false, firstAudioAt };
    } catch (err) {
      // A voice that fails must not take the answer away: it is on the page/projector already.
      this.log.warn({ err, engine: this.tts.engine }, 'speech synthesis or playback failed');
      return { stopped: true, firstAudioAt };
    } finally {
      this.active--;
    }
  }

  stop(): void {
    this.generation++;
    this.speaker.stop();
  }
}
