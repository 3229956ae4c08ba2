import type { Drivers } from '../../drivers/index.js';
import type { SceneName } from '../../scenes/types.js';
import type { EventBus } from '../bus.js';
import type { LampConfig } from '../config/schema.js';
import type { LampEvents } from '../events.js';
import type { Component } from '../lifecycle.js';
import type { Logger } from '../log.js';
import { VoiceLoop } from './loop.js';
import { SpeechOutput } from './output.js';
import { type VoiceStack, loadVoiceStack } from './setup.js';

export interface VoiceServiceDeps {
  config: LampConfig;
  drivers: Drivers;
  bus: EventBus<LampEvents>;
  submit: (text: string) => Promise<{ trace_id: string }>;
  activeScene: () => SceneName;
  log: Logger;
  /** Tests inject a stack; the lamp loads the models the config names. */
  load?: () => Promise<VoiceStack>;
}

/**
 * The voice path as a lifecycle component. Models load in the background after start (the
 * lamp is usable by text and page at once); `ready` resolves when the loop runs.
 */
export class VoiceService implements Component {
  readonly name = 'voice';
  readonly dependsOn: string[];
  loop: VoiceLoop | undefined;
  stack: VoiceStack | undefined;
  ready: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: VoiceServiceDeps) {
    this.dependsOn = (['microphone', 'speaker', 'button'] as const).filter((k) => deps.drivers[k]).map((k) => `driver:${k}`);
  }

  async start(): Promise<void> {
    this.stopped = false;
    const { config, drivers, log } = this.deps;
    this.ready = (this.deps.load ?? (() => loadVoiceStack(config, drivers, log)))()
      .then((stack) => {
        if (this.stopped || !drivers.microphone) return;
        this.stack = stack;
        const output = drivers.speaker && stack.tts ? new SpeechOutput(drivers.speaker, stack.tts, log) : undefined;
        const button = drivers.button;
        this.loop = new VoiceLoop({
          mic: drivers.microphone,
          onButton: button ? (fn) => button.onPress(fn) : undefined,
          vad: stack.vad,
          asr: stack.asr,
          kws: stack.kws,
          output,
          submit: this.deps.submit,
          activeScene: this.deps.activeScene,
          bus: this.deps.bus,
          log,
          followUpMs: config.voice.followUpMs,
          listenTimeoutMs: config.voice.listenTimeoutMs,
        });
        this.loop.start();
        log.info({ asr: stack.asr?.engine ?? 'none', tts: stack.tts?.engine ?? 'none', wake_word: stack.kws ? 'on' : 'off', vad: stack.vad ? 'on' : 'off' }, 'voice ready');
      })
      .catch((err: unknown) => log.error({ err }, 'the voice path could not start; the lamp works by text and page'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.loop?.stop();
    this.loop = undefined;
  }

  health(): Record<string, unknown> {
    return { ...(this.loop?.health() ?? { state: 'loading' }), degraded: this.stack?.degraded ?? [] };
  }
}
