import type { CloudClient } from '../sync/cloud.js';
import type { RecitationStore } from '../sync/recitation-store.js';
import type { Component } from './lifecycle.js';
import type { Logger } from './log.js';
import { localDay } from '../scenes/recite/report.js';

const BATCH = 5;
const DEADLINE_MS = 5000;

/**
 * While the cloud is reachable, replaces what was worded offline with the cloud's wording: memory
 * tips (each once, then reused for good) and the reports of finished periods. Offline it waits;
 * the local wording is complete on its own.
 */
export class CloudUpgrades implements Component {
  readonly name = 'cloud-upgrades';
  readonly dependsOn = ['sync', 'pipeline'];
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  upgraded = 0;

  constructor(
    private readonly cloud: () => CloudClient | undefined,
    private readonly store: () => RecitationStore | undefined,
    private readonly now: () => Date,
    private readonly log: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  async start(): Promise<void> {
    this.timer = setInterval(() => void this.round(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
  }

  /** One pass; safe to call at any time (never runs twice at once, never throws). */
  async round(): Promise<void> {
    const cloud = this.cloud();
    const store = this.store();
    if (this.running || !cloud?.available || !store) return;
    this.running = true;
    try {
      for (const p of store.localTips(BATCH)) {
        const r = await cloud.call('memory_tip', { material_id: p.material_id, error_type: p.error_type, expected: p.content, local_tip: p.memory_tip }, DEADLINE_MS);
        if (typeof r.tip === 'string' && r.tip.trim()) {
          store.setCloudTip(p.id, r.tip.trim().slice(0, 300), this.now());
          this.upgraded++;
        }
      }
      for (const rep of store.localReports(localDay(this.now()), BATCH)) {
        const r = await cloud.call('generate_report', JSON.parse(rep.data_json) as Record<string, unknown>, DEADLINE_MS);
        if (typeof r.wording === 'string' && r.wording.trim()) {
          store.setCloudWording(rep.user_id, rep.period, rep.period_start, r.wording.trim().slice(0, 2000), this.now());
          this.upgraded++;
        }
      }
    } catch (err) {
      this.log.info({ err: (err as Error).message }, 'cloud wording postponed');
    } finally {
      this.running = false;
    }
  }

  health(): Record<string, unknown> {
    return { upgraded: this.upgraded };
  }
}
