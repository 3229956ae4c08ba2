import type { Database } from 'better-sqlite3';
import { SimCamera } from '../drivers/camera/sim.js';
import { SimButton } from '../drivers/button/sim.js';
import type { Device } from '../drivers/device.js';
import { type Drivers, createDrivers } from '../drivers/index.js';
import { chatScene } from '../scenes/chat/scene.js';
import type { Scene, SceneName } from '../scenes/types.js';
import { databasePath, ensureDataDir, openDatabase } from '../sync/db.js';
import { SqliteOutbox } from '../sync/outbox.js';
import { CommandHandler } from '../sync/commands.js';
import { SyncService } from '../sync/service.js';
import { setLiveConfig } from './config/live.js';
import { CloudUpgrades } from './cloud-upgrades.js';
import { MonotonicClock } from '../sync/clock.js';
import { type RecitationAttempt, RecitationStore } from '../sync/recitation-store.js';
import { EventBus } from './bus.js';
import type { LampConfig } from './config/schema.js';
import type { LampEvents } from './events.js';
import { resolveApiToken } from './http/auth.js';
import { HttpServer } from './http/server.js';
import { type Component, Lifecycle } from './lifecycle.js';
import { type Logger, child } from './log.js';
import { createEffectRunner } from './turn/effects.js';
import { TurnPipeline, type TurnInput } from './turn/pipeline.js';
import { IntentRouter } from './turn/router.js';
import { MaterialMatcher } from './turn/slots.js';
import { IntentClassifier } from '../models/intent/classifier.js';
import { builtinLibrary } from '../scenes/recite/library.js';
import { createReciteScene } from '../scenes/recite/scene.js';
import { homeworkScene } from '../scenes/homework/scene.js';
import { HomeworkStore, type HomeworkCheckRecord } from '../sync/homework-store.js';
import { modelsDirOf } from '../models/manifest.js';
import { HomeworkService, dumpDirOf } from './homework/service.js';
import { VoiceService } from './voice/service.js';
import { SessionStore } from './turn/session.js';
import { VERSION } from './version.js';

export interface App {
  config: LampConfig;
  lifecycle: Lifecycle;
  bus: EventBus<LampEvents>;
  drivers: Drivers;
  http: HttpServer;
  sync: SyncService | undefined;
  upgrades: CloudUpgrades | undefined;
  voice: VoiceService | undefined;
  homework: HomeworkService;
  pipeline: () => TurnPipeline;
  db: () => Database;
  health: () => Record<string, unknown>;
}

/** One child per lamp for now; the learning tables already carry a user id for more. */
const LEARNER = 'default';

/** How long a child waits for the cloud's answer before the lamp answers offline. */
const CHAT_DEADLINE_MS = 2500;

function deviceComponent(device: Device): Component {
  return {
    name: `driver:${device.kind}`,
    start: () => device.open(),
    stop: () => device.close(),
    health: () => device.health(),
  };
}

/**
 * The composition root: builds every component from the config and wires them together.
 * Nothing is opened here; `lifecycle.start()` opens them in dependency order.
 */
export function createApp(config: LampConfig, log: Logger): App {
  const startedAt = new Date();
  ensureDataDir(config.dataDir); // first, so an unwritable data dir is the error a technician sees
  const bus = new EventBus<LampEvents>(child(log, 'bus'));
  const drivers = createDrivers(config, child(log, 'drivers'));
  let db: Database | undefined;
  /** One outbox per open database, shared by the pipeline, sync and health. */
  let outbox: SqliteOutbox | undefined;
  let pipeline: TurnPipeline | undefined;
  let recitations: RecitationStore | undefined;
  let clock: MonotonicClock | undefined;

  const storage: Component = {
    name: 'storage',
    async start() {
      db = openDatabase(databasePath(config.dataDir));
      outbox = new SqliteOutbox(db);
    },
    async stop() {
      db?.close();
      db = undefined;
      outbox = undefined;
    },
    health() {
      return { file: databasePath(config.dataDir), outboxPending: outbox?.pending() ?? null };
    },
  };

  const library = builtinLibrary();
  const matcher = new MaterialMatcher(library);
  const scenes: Record<SceneName, Scene | undefined> = { chat: chatScene as Scene, recite: createReciteScene(library) as Scene, homework: homeworkScene as Scene };
  const driverComponents = Object.values(drivers).map((d: Device) => deviceComponent(d));
  const submit = (input: TurnInput): void => {
    pipeline?.handle(input).catch((err: unknown) => log.error({ err, input: input.type }, 'turn failed'));
  };
  const homework = new HomeworkService({
    camera: drivers.camera,
    // Loaded on demand: OpenCV and onnxruntime stay out of the lamp's cold start.
    load: async () => (await import('./homework/checker.js')).HomeworkChecker.load({ modelsDir: modelsDirOf(config), minConfidence: config.homework.minConfidence, dumpDir: dumpDirOf(config, undefined), log: child(log, 'ocr') }),
    cloud: () => sync?.cloud,
    outbox: () => outbox,
    submit,
    cloudDeadlineMs: config.homework.cloudDeadlineMs,
    warmUpAfterMs: config.homework.warmUp ? 2000 : undefined,
    now: () => clock?.now() ?? new Date(),
    log: child(log, 'homework'),
  });
  const turn: Component = {
    name: 'pipeline',
    dependsOn: ['storage', ...driverComponents.map((c) => c.name)],
    async start() {
      if (!db || !outbox) throw new Error('storage is not open');
      library.upsert(CommandHandler.pushedMaterials(db));
      matcher.reload();
      recitations = new RecitationStore(db, outbox, library);
      clock = new MonotonicClock(db);
      const store = recitations;
      const checks = new HomeworkStore(db, outbox);
      if (clock.wallIsBehind) log.warn({ wall: new Date().toISOString(), using: clock.now().toISOString() }, 'the wall clock is behind the last time the lamp used; using the later one');
      pipeline = new TurnPipeline({
        db,
        observeTime: (t) => clock?.observe(t),
        now: () => (clock as MonotonicClock).now(),
        sceneContext: { recite: () => store.context(LEARNER) },
        records: {
          recitation_attempt: (data, t) => store.record(LEARNER, data as unknown as RecitationAttempt, t),
          homework_check: (data, t) => checks.record(LEARNER, data as unknown as HomeworkCheckRecord, t),
        },
        inspectImage: (source, turnLog) => homework.inspect(source, turnLog),
        sessions: new SessionStore(db),
        outbox,
        router: new IntentRouter(IntentClassifier.load(), matcher).warmUp(),
        idleResetMinutes: () => config.session.idleResetMinutes,
        prepare: async (scene, route, text, turnLog) => {
          const cloud = sync?.cloud;
          if (scene !== 'chat' || route.intent !== 'chat' || route.confidence === 'LOW' || !cloud?.available) return undefined;
          try {
            const r = await cloud.call('chat', { text }, CHAT_DEADLINE_MS);
            return typeof r.text === 'string' ? { cloudReply: r.text.slice(0, 500) } : undefined;
          } catch (err) {
            turnLog.info({ err: (err as Error).message }, 'cloud chat not available for this turn; answering offline');
            return undefined;
          }
        },
        onTurn: (envelope, source) => {
          sync?.pump();
          bus.emit('turn.completed', { envelope, source });
        },
        scenes,
        runEffects: createEffectRunner(drivers, bus, {
          capturePage: (delayMs) => homework.capture(delayMs),
          cloudCall: async (effect, turnLog) => {
            if (effect.method === 'grade_homework') await homework.escalate(effect, turnLog);
          },
        }),
        log: child(log, 'turn'),
      });
      const mic = drivers.microphone;
      if (mic) {
        mic.onText((text) => {
          pipeline?.handle({ type: 'utterance', text, source: 'microphone' }).catch((err: unknown) => {
            log.error({ err }, 'turn from the microphone failed');
            bus.emit('speech', { traceId: 'error', text: '出了点小问题，我们再说一遍好吗？' });
          });
        });
      }
    },
    async stop() {
      pipeline = undefined;
    },
    health: () => ({ turns: pipeline?.turns ?? 0, last_turn: pipeline?.lastTiming ?? null }),
  };

  const health = (): Record<string, unknown> => {
    const components = lifecycle.health();
    return {
      status: lifecycle.allRunning() ? 'ok' : 'degraded',
      version: VERSION,
      device_id: config.deviceId,
      mode: Object.values(config.drivers).includes('real') ? 'device' : 'simulator',
      cloud: config.mqtt.url ? 'configured' : 'offline (no broker configured; records stay queued)',
      started_at: startedAt.toISOString(),
      uptime_s: Math.round((Date.now() - startedAt.getTime()) / 1000),
      components,
    };
  };

  const http = new HttpServer({
    host: config.http.host,
    port: config.http.port,
    token: resolveApiToken(config.http.token, config.dataDir),
    deviceId: config.deviceId,
    simulatorPage: config.http.simulatorPage,
    maxClients: config.http.maxClients,
    maxMessageBytes: config.http.maxMessageBytes,
    maxUploadBytes: config.http.maxUploadBytes,
    get pipeline() {
      if (!pipeline) throw new Error('pipeline not started');
      return pipeline;
    },
    bus,
    projector: drivers.projector,
    camera: drivers.camera instanceof SimCamera ? drivers.camera : undefined,
    pressButton: drivers.button instanceof SimButton ? () => (drivers.button as SimButton).press() : undefined,
    health,
    log: child(log, 'http'),
  });

  const sync = config.mqtt.url
    ? new SyncService({
        get db() {
          if (!db) throw new Error('storage is not open');
          return db;
        },
        get outbox() {
          if (!outbox) throw new Error('storage is not open');
          return outbox;
        },
        link: { url: config.mqtt.url, deviceId: config.deviceId, version: VERSION, credentialsFile: config.mqtt.credentialsFile, caFile: config.mqtt.caFile, certFile: config.mqtt.certFile, keyFile: config.mqtt.keyFile },
        commands: {
          setConfig: (p, value) => setLiveConfig(config, p, value, log),
          addMaterials: (materials) => {
            library.upsert(materials);
            matcher.reload();
          },
          bundle: () => ({ health: health(), config: { ...config, http: { ...config.http, token: config.http.token ? '[redacted]' : undefined } } }),
          deliver: (params) => {
            if (!homework.delivered(params)) log.info({ kind: params.kind }, 'cloud result delivered for nothing the lamp is waiting on');
          },
        },
        log: child(log, 'sync'),
      })
    : undefined;

  const upgrades = sync ? new CloudUpgrades(() => sync.cloud, () => recitations, () => clock?.now() ?? new Date(), child(log, 'cloud')) : undefined;

  const voice = config.voice.enabled && drivers.microphone
    ? new VoiceService({
        config,
        drivers,
        bus,
        submit: (text) => {
          if (!pipeline) return Promise.reject(new Error('pipeline not started'));
          return pipeline.handle({ type: 'utterance', text, source: 'voice' });
        },
        activeScene: () => pipeline?.activeScene() ?? 'chat',
        log: child(log, 'voice'),
      })
    : undefined;

  const lifecycle = new Lifecycle([storage, ...(sync ? [sync] : []), ...driverComponents, homework, turn, ...(voice ? [voice] : []), http, ...(upgrades ? [upgrades] : [])], child(log, 'lifecycle'), config.lifecycle.stopTimeoutMs);

  return {
    config,
    lifecycle,
    bus,
    drivers,
    http,
    sync,
    upgrades,
    voice,
    homework,
    pipeline: () => {
      if (!pipeline) throw new Error('pipeline not started');
      return pipeline;
    },
    db: () => {
      if (!db) throw new Error('storage not open');
      return db;
    },
    health,
  };
}
