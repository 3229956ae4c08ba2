import type { Camera } from '../../drivers/camera/camera.js';
import type { Effect } from '../../scenes/types.js';
import type { PageCheck } from '../../scenes/homework/types.js';
import type { CloudClient } from '../../sync/cloud.js';
import type { SqliteOutbox } from '../../sync/outbox.js';
import { isLampError } from '../errors.js';
import type { Component } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { TurnInput } from '../turn/pipeline.js';
import path from 'node:path';
import type { LampConfig } from '../config/schema.js';
import type { HomeworkChecker } from './checker.js';

export interface HomeworkServiceDeps {
  camera: Camera | undefined;
  load: () => Promise<HomeworkChecker>;
  cloud: () => CloudClient | undefined;
  outbox: () => SqliteOutbox | undefined;
  /** Hands a later turn (the photo after capture_page, a cloud answer) to the pipeline. */
  submit: (input: TurnInput) => void;
  cloudDeadlineMs: number;
  /** The lamp's monotonic clock, for the queued request's time. */
  now: () => Date;
  log: Logger;
  /** Load the OCR models this long after start, so they do not compete with startup; undefined = at the first page. */
  warmUpAfterMs?: number;
}

/** Pages whose crops are kept for the cloud call that follows their check. */
const CROPS_KEPT = 8;

const UNAVAILABLE = '我现在还看不了作业本，请大人看看灯的设置。';

/**
 * The runtime side of homework checking: loads the OCR models in the background after the
 * lamp is up (cold start does not wait for them), looks at the camera for image turns, takes
 * photos when the scene asks (capture_page), and sends what the lamp cannot judge to the
 * cloud's grade_homework — live when the cloud is reachable, otherwise queued in the outbox as a
 * grade_request that the cloud answers later with deliver_result.
 */
export class HomeworkService implements Component {
  readonly name = 'homework';
  readonly dependsOn = ['storage'];
  private checker: Promise<HomeworkChecker> | undefined;
  private loadError: string | undefined;
  private readonly crops = new Map<string, Map<number, Buffer>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  pages = 0;
  lastTimings: Record<string, number> | null = null;

  constructor(private readonly deps: HomeworkServiceDeps) {}

  async start(): Promise<void> {
    if (this.deps.warmUpAfterMs === undefined) return;
    // Warm up in the background once the lamp is up; the first check waits for it if it comes sooner.
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.ready().catch(() => undefined);
    }, this.deps.warmUpAfterMs);
    t.unref();
    this.timers.add(t);
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const checker = this.checker;
    this.checker = undefined;
    await checker?.then((c) => c.release()).catch(() => undefined);
  }

  private ready(): Promise<HomeworkChecker> {
    this.checker ??= this.deps.load().catch((err: unknown) => {
      this.loadError = isLampError(err) ? err.message : String(err);
      this.deps.log.error({ err }, 'homework checking is off: the OCR models could not be loaded');
      throw err;
    });
    return this.checker;
  }

  /** The image turn's look at the page; never rejects. */
  async inspect(source: string, log: Logger): Promise<PageCheck> {
    if (!this.deps.camera) return { ok: false, issue: 'unavailable', hint: UNAVAILABLE };
    let checker: HomeworkChecker;
    try {
      checker = await this.ready();
    } catch {
      return { ok: false, issue: 'unavailable', hint: UNAVAILABLE };
    }
    let frame;
    try {
      frame = await this.deps.camera.capture();
    } catch (err) {
      log.warn({ err: (err as Error).message, source }, 'no camera frame');
      return { ok: false, issue: 'no_frame', hint: '我没看到作业本，把它放在灯下面吧。' };
    }
    try {
      const r = await checker.check(frame.data);
      this.pages++;
      this.lastTimings = r.timings_ms;
      log.info({ ...r.timings_ms, ok: r.check.ok, items: r.check.ok ? r.check.items.length : 0, issue: r.check.ok ? undefined : r.check.issue }, 'page checked');
      if (r.check.ok) {
        this.crops.set(r.check.check_id, r.crops);
        while (this.crops.size > CROPS_KEPT) this.crops.delete(this.crops.keys().next().value as string);
      }
      return r.check;
    } catch (err) {
      log.warn({ err }, 'the page could not be read');
      return { ok: false, issue: 'no_page', hint: '我没看清楚，把作业本放平再试试吧。' };
    }
  }

  /** capture_page: look again after the delay. */
  capture(delayMs: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.deps.submit({ type: 'image', source: 'camera' });
    }, delayMs);
    this.timers.add(t);
  }

  /** grade_homework for the items the lamp could not judge, with each problem's picture. */
  async escalate(effect: Extract<Effect, { type: 'cloud_call' }>, log: Logger): Promise<void> {
    const crops = this.crops.get(effect.request_id);
    const items = (Array.isArray(effect.params.items) ? effect.params.items : []).map((it) => {
      const item = it as { index: number };
      const jpeg = crops?.get(item.index);
      return { ...item, image_jpeg_base64: jpeg ? jpeg.toString('base64') : null };
    });
    const params = { ...effect.params, items };
    const cloud = this.deps.cloud();
    if (cloud?.available) {
      try {
        const result = await cloud.call('grade_homework', params, this.deps.cloudDeadlineMs);
        this.deps.submit({ type: 'result', scene: 'homework', method: 'grade_homework', request_id: effect.request_id, result, source: 'cloud' });
        return;
      } catch (err) {
        log.info({ err: (err as Error).message }, 'cloud grading not available now; the request waits in the outbox');
      }
    }
    this.deps.outbox()?.append('homework', { kind: 'grade_request', request_id: effect.request_id, method: 'grade_homework', params }, 1, this.deps.now());
  }

  /** deliver_result from the cloud for a queued grade_request. */
  delivered(params: Record<string, unknown>): boolean {
    if (params.kind !== 'grade_homework' || typeof params.request_id !== 'string' || typeof params.result !== 'object' || params.result === null) return false;
    this.deps.submit({ type: 'result', scene: 'homework', method: 'grade_homework', request_id: params.request_id, result: params.result as Record<string, unknown>, source: 'cloud' });
    return true;
  }

  health(): Record<string, unknown> {
    return { models: this.loadError ? `failed: ${this.loadError}` : this.checker ? 'loaded or loading' : 'not loaded', pages: this.pages, last_timings_ms: this.lastTimings };
  }
}

/** The page pipeline's debug dump directory: a command-line flag, else `homework.dumpDir`, relative to the data dir. */
export function dumpDirOf(config: LampConfig, flag: string | undefined): string | undefined {
  const dir = flag ?? config.homework.dumpDir;
  return dir ? path.resolve(config.dataDir, dir) : undefined;
}
