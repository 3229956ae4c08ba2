import type { AudioChunk, Microphone } from '../../drivers/microphone/microphone.js';
import type { SceneName } from '../../scenes/types.js';
import type { EventBus } from '../bus.js';
import type { LampEvents } from '../events.js';
import type { Logger } from '../log.js';
import type { SpeechOutput } from './output.js';
import type { AsrPort, AsrStreamPort, KwsPort, VadPort } from './ports.js';

export type VoiceState = 'idle' | 'listening' | 'hearing' | 'thinking' | 'speaking';

/** One voice turn, in ms from the end of the child's speech. */
export interface VoiceTiming {
  trace_id: string | null;
  final_text_ms: number;
  response_ready_ms: number;
  first_audio_ms: number | null;
}

export interface VoiceLoopDeps {
  mic: Microphone;
  onButton?: (fn: () => void) => () => void;
  vad?: VadPort;
  asr?: AsrPort;
  kws?: KwsPort;
  output?: SpeechOutput;
  /** Hands the final text to the turn pipeline; resolves with the turn's trace id. */
  submit: (text: string) => Promise<{ trace_id: string }>;
  activeScene: () => SceneName;
  bus: EventBus<LampEvents>;
  log: Logger;
  /** After the lamp has spoken, how long it listens without the wake word. */
  followUpMs: number;
  /** After a wake, how long it waits for speech to begin. */
  listenTimeoutMs: number;
}

/** Audio kept from before the VAD noticed speech, so the recogniser hears the first syllable. */
const PREROLL_MS = 500;
const TIMINGS_KEPT = 50;

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/**
 * The voice path: microphone → (wake word | button) → VAD → streaming ASR → turn pipeline →
 * TTS → speaker.
 *
 * The lamp has no echo cancellation, so it must not hear itself: while it is thinking or
 * speaking the microphone's audio reaches neither the VAD nor the recogniser — only the wake
 * word spotter, and the push-to-talk button is always live. Either one stops playback at once
 * and opens listening (the interruption). After the lamp has spoken, a follow-up window
 * listens without the wake word.
 */
export class VoiceLoop {
  state: VoiceState = 'idle';
  private readonly offs: (() => void)[] = [];
  private stream: AsrStreamPort | undefined;
  private preroll: AudioChunk[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastPartial = '';
  /** The voice turn waiting for its reply: timing marks so far. */
  private pending: { endAt: number; finalAt: number; traceId?: string; readyAt?: number } | undefined;
  readonly timings: VoiceTiming[] = [];
  /** Listening because the child asked to speak (button, wake word), not a follow-up window. */
  private woken = false;
  /** Speech that waits for the child to finish the sentence they are saying. */
  private readonly afterHearing: (() => void)[] = [];
  turns = 0;

  constructor(private readonly deps: VoiceLoopDeps) {}

  /** Whether the lamp can hear speech at all (needs a VAD and a recogniser). */
  get canListen(): boolean {
    return this.deps.vad !== undefined && this.deps.asr !== undefined;
  }

  start(): void {
    this.offs.push(this.deps.mic.onAudio((chunk) => this.onAudio(chunk)));
    if (this.deps.onButton) this.offs.push(this.deps.onButton(() => this.wake('button')));
    this.deps.bus.on('voice', 'speech', ({ traceId, text }) => this.speak(traceId, text));
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
    this.deps.bus.stop('voice');
    clearTimeout(this.timer);
    this.deps.output?.stop();
    this.state = 'idle';
  }

  /** Push-to-talk or the wake word: interrupt whatever the lamp is saying and listen. */
  wake(reason: 'button' | 'keyword'): void {
    if (this.state === 'speaking' || this.deps.output?.speaking) this.deps.output?.stop();
    if (!this.canListen) {
      this.deps.log.warn({ reason }, 'woken, but there is no speech recogniser or VAD: the lamp cannot listen');
      this.setState('idle', 'no_asr');
      return;
    }
    this.listen(this.deps.listenTimeoutMs, reason);
  }

  private setState(state: VoiceState, reason?: string): void {
    if (state === this.state) return;
    if (state !== 'listening' && state !== 'hearing') for (const done of this.afterHearing.splice(0)) done();
    this.state = state;
    this.deps.bus.emit('voice.state', { state, reason });
  }

  private listen(timeoutMs: number, reason: string): void {
    this.woken = reason === 'button' || reason === 'keyword';
    this.deps.vad?.setPreset(this.deps.activeScene() === 'recite' ? 'recite' : 'chat');
    this.deps.vad?.reset();
    this.stream = undefined;
    this.preroll = [];
    this.setState('listening', reason);
    this.armTimeout(timeoutMs);
  }

  private armTimeout(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.state === 'listening') this.setState('idle', 'timeout');
    }, ms);
    this.timer.unref();
  }

  private onAudio(chunk: AudioChunk): void {
    const keyword = this.deps.kws?.accept(chunk.samples);
    if (keyword && this.state !== 'listening' && this.state !== 'hearing') {
      this.deps.log.info({ keyword }, 'wake word');
      this.wake('keyword');
      return;
    }
    // Gated: only the wake word and the button are heard while idle, thinking or speaking.
    if ((this.state !== 'listening' && this.state !== 'hearing') || !this.deps.vad || !this.deps.asr) return;
    this.preroll.push(chunk);
    const keepFrom = chunk.atMs - PREROLL_MS;
    while (this.preroll.length > 1 && (this.preroll[0] as AudioChunk).atMs < keepFrom) this.preroll.shift();

    let fed = false;
    for (const ev of this.deps.vad.accept(chunk.samples)) {
      if (ev.type === 'speech_start' && !this.stream) {
        clearTimeout(this.timer);
        this.stream = this.deps.asr.createStream();
        for (const c of this.preroll) this.stream.accept(c.samples, c.source);
        fed = true;
        this.lastPartial = '';
        this.setState('hearing');
      } else if (ev.type === 'speech_end' && this.stream) {
        void this.finish(this.stream);
        this.stream = undefined;
        return;
      }
    }
    if (this.stream && this.state === 'hearing') {
      if (!fed) this.stream.accept(chunk.samples, chunk.source);
      const partial = this.stream.partial();
      if (partial && partial !== this.lastPartial) {
        this.lastPartial = partial;
        this.deps.bus.emit('voice.partial', { text: partial });
      }
    }
  }

  private async finish(stream: AsrStreamPort): Promise<void> {
    const endAt = performance.now();
    this.setState('thinking');
    let text = '';
    try {
      text = (await stream.finish()).trim();
    } catch (err) {
      this.deps.log.warn({ err }, 'speech recognition failed');
    }
    const finalAt = performance.now();
    if (!text) {
      // Nothing recognisable (a cough, the desk): keep listening a little longer, say nothing.
      this.listen(this.deps.listenTimeoutMs, 'nothing_recognised');
      return;
    }
    this.deps.bus.emit('voice.partial', { text, final: true });
    this.pending = { endAt, finalAt };
    this.turns++;
    try {
      const { trace_id } = await this.deps.submit(text);
      if (this.pending && !this.pending.traceId) this.pending.traceId = trace_id;
      if (this.pending && this.pending.readyAt === undefined) {
        // The turn had nothing to say.
        this.pending.readyAt = performance.now();
        this.record(undefined);
        this.listen(this.deps.followUpMs, 'follow_up');
      }
    } catch (err) {
      this.deps.log.error({ err }, 'voice turn failed');
      this.pending = undefined;
      this.setState('idle', 'turn_failed');
    }
  }

  private record(firstAudioAt: number | undefined): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    const rel = (t: number): number => Math.round((t - p.endAt) * 10) / 10;
    const timing: VoiceTiming = { trace_id: p.traceId ?? null, final_text_ms: rel(p.finalAt), response_ready_ms: rel(p.readyAt ?? p.finalAt), first_audio_ms: firstAudioAt === undefined ? null : rel(firstAudioAt) };
    this.timings.push(timing);
    if (this.timings.length > TIMINGS_KEPT) this.timings.shift();
    this.deps.log.info({ ...timing, scene: this.deps.activeScene() }, 'voice turn timing (ms after the end of speech)');
  }

  private async speak(traceId: string, text: string): Promise<void> {
    // The lamp never talks over a child who is speaking or who has just pressed to speak (e.g.
    // when a photo's result arrives then): it waits until the utterance is in or listening ends.
    if (this.state === 'hearing' || (this.state === 'listening' && this.woken)) await new Promise<void>((r) => this.afterHearing.push(r));
    if (this.pending && this.pending.readyAt === undefined) {
      this.pending.readyAt = performance.now();
      this.pending.traceId = traceId;
    }
    const ours = this.pending;
    if (!this.deps.output) {
      if (ours) this.record(undefined);
      return;
    }
    clearTimeout(this.timer);
    this.stream = undefined;
    this.setState('speaking');
    const spoken = await this.deps.output.say(text, (at) => {
      if (ours && this.pending === ours) this.record(at);
    });
    if (ours && this.pending === ours) this.record(undefined); // nothing was played
    if (spoken.stopped) return; // interrupted: whoever stopped it decides what comes next
    if (this.canListen) this.listen(this.deps.followUpMs, 'follow_up');
    else this.setState('idle');
  }

  health(): Record<string, unknown> {
    const pick = (k: 'final_text_ms' | 'response_ready_ms' | 'first_audio_ms'): number | null => median(this.timings.map((t) => t[k]).filter((x): x is number => x !== null));
    return {
      state: this.state,
      can_listen: this.canListen,
      wake_word: this.deps.kws ? 'on' : 'off (push-to-talk only)',
      asr: this.deps.asr?.engine ?? 'none',
      tts: this.deps.output?.engine ?? 'none',
      voice_turns: this.turns,
      last_timing: this.timings[this.timings.length - 1] ?? null,
      median_ms: { final_text: pick('final_text_ms'), response_ready: pick('response_ready_ms'), first_audio: pick('first_audio_ms') },
    };
  }
}
