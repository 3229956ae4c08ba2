import { z } from 'zod';

/**
 * The lamp's whole configuration. Every field has a default so that `npm start` runs with no
 * configuration at all (simulator drivers, data in ./var, offline). Each leaf can be overridden
 * by an environment variable derived from its path (see env.ts): `http.port` → `LAMP_HTTP_PORT`.
 * Fields marked `live` may be changed while the lamp runs (cloud `set_config` command); all
 * others take effect at the next start.
 */
const live = { live: true } as const;

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const driverBinding = z.enum(['simulator', 'real', 'none']);

export const configSchema = z.strictObject({
  deviceId: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{2,63}$/, 'lower-case letters, digits and dashes, 3–64 characters')
    .default('lamp-dev'),
  dataDir: z.string().min(1).default('./var'),
  log: z
    .strictObject({
      level: logLevel.default('info').meta(live),
      format: z.enum(['auto', 'json', 'pretty']).default('auto'),
    })
    .prefault({}),
  http: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(8080),
      /** Token for the WebSocket API and uploads; when empty one is generated into the data dir. */
      token: z.string().min(16, 'at least 16 characters').optional(),
      simulatorPage: z.boolean().default(true),
      maxClients: z.number().int().min(1).max(64).default(8),
      maxMessageBytes: z.number().int().min(1024).max(1_048_576).default(65_536),
      maxUploadBytes: z.number().int().min(1024).max(33_554_432).default(10_485_760),
    })
    .prefault({}),
  drivers: z
    .strictObject({
      camera: driverBinding.default('simulator'),
      microphone: driverBinding.default('simulator'),
      speaker: driverBinding.default('simulator'),
      projector: driverBinding.default('simulator'),
      servo: driverBinding.default('simulator'),
      button: driverBinding.default('simulator'),
      /** Linux input device of the push-to-talk button (the real button binding reads its key events). */
      buttonDevice: z.string().min(1).default('/dev/input/by-path/platform-gpio-keys-event'),
      /** Key code the push-to-talk button sends (linux/input-event-codes.h; 28 = KEY_ENTER). */
      buttonKeyCode: z.number().int().min(0).max(0x2ff).default(28),
      /** Where the simulated speaker writes WAV files; empty = discard. Relative to dataDir. */
      speakerOutDir: z.string().default('out'),
    })
    .prefault({}),
  camera: z
    .strictObject({
      /** V4L2 device of the real camera binding. */
      device: z.string().min(1).default('/dev/video0'),
      width: z.number().int().min(160).max(4096).default(1280),
      height: z.number().int().min(120).max(4096).default(720),
      /** Pixel format asked of the device (four characters, e.g. MJPG or YUYV). */
      fourcc: z.string().regex(/^[A-Z0-9 ]{4}$/, 'four upper-case characters such as MJPG').default('MJPG'),
      /** How long to wait before reopening a device that disappeared. */
      reconnectMs: z.number().int().min(100).max(60_000).default(2_000),
    })
    .prefault({}),
  audio: z
    .strictObject({
      /** ALSA capture device of the real microphone binding (arecord -D). */
      captureDevice: z.string().min(1).default('default'),
      /** ALSA playback device of the real speaker binding (aplay -D). */
      playbackDevice: z.string().min(1).default('default'),
      /** Speaker volume, 0 … 1. */
      volume: z.number().min(0).max(1).default(0.8).meta(live),
    })
    .prefault({}),
  models: z
    .strictObject({
      /** Where model weights live on the device; empty = <dataDir>/models. Models shipped in npm packages are found in node_modules as well. */
      dir: z.string().default(''),
    })
    .prefault({}),
  homework: z
    .strictObject({
      /** Below this OCR confidence a problem is "uncertain" (shown, sent to the cloud, never counted wrong). */
      minConfidence: z.number().min(0).max(1).default(0.8),
      /** Debug: write every intermediate image of the page pipeline into this directory (relative to dataDir); empty = off. */
      dumpDir: z.string().default(''),
      /** How long the lamp waits for the cloud's grading before queueing the request for later. */
      cloudDeadlineMs: z.number().int().min(1000).max(120_000).default(20_000),
      /** Load the OCR models in the background a moment after start (off: at the first page). */
      warmUp: z.boolean().default(true),
    })
    .prefault({}),
  voice: z
    .strictObject({
      /** Listen and speak; off = typed text and the page only. */
      enabled: z.boolean().default(true),
      /** Wake words, heard only when a keyword-spotting model is installed; the push-to-talk button always works. */
      wakeWords: z.array(z.string().min(2).max(16)).min(1).max(8).default(['小灯小灯']),
      /** After the lamp has spoken, how long it listens without the wake word. */
      followUpMs: z.number().int().min(0).max(60_000).default(6_000),
      /** After a wake, how long it waits for the child to start speaking. */
      listenTimeoutMs: z.number().int().min(1000).max(60_000).default(8_000),
      /** Manifest names of the speech models to use when present in the model directory. */
      asrModel: z.string().default('sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20'),
      kwsModel: z.string().default('kws-zipformer-wenetspeech-3-3m-2024-01-01'),
      ttsModel: z.string().default('matcha-icefall-zh-baker'),
      /** Keep synthesised fixed phrases on disk (<dataDir>/tts-cache). */
      phraseCache: z.boolean().default(true),
    })
    .prefault({}),
  mqtt: z
    .strictObject({
      /** Broker URL; empty = offline, everything upward stays queued in the outbox. */
      url: z.string().regex(/^(mqtts?|wss?):\/\/\S+$/, 'an mqtt://, mqtts://, ws:// or wss:// URL').optional(),
      credentialsFile: z.string().optional(),
      caFile: z.string().optional(),
      certFile: z.string().optional(),
      keyFile: z.string().optional(),
    })
    .prefault({}),
  session: z
    .strictObject({
      idleResetMinutes: z.number().int().min(1).max(24 * 60).default(30).meta(live),
    })
    .prefault({}),
  lifecycle: z
    .strictObject({
      stopTimeoutMs: z.number().int().min(100).max(60_000).default(5_000),
    })
    .prefault({}),
});

export type LampConfig = z.infer<typeof configSchema>;
export type LampConfigInput = z.input<typeof configSchema>;
