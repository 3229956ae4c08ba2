import { randomUUID } from 'node:crypto';
import { ErrorCode, LampError } from '../runtime/errors.js';
import type { RpcResponse } from './contract.js';

type Method = 'grade_homework' | 'generate_report' | 'memory_tip' | 'chat';

/** Methods whose repetition cannot do harm: only these are retried. */
const IDEMPOTENT: ReadonlySet<Method> = new Set(['grade_homework', 'generate_report', 'memory_tip']);

export interface RpcTransport {
  readonly connected: boolean;
  /** Sends a request; false when it could not be sent (offline). */
  send(request: { id: string; method: Method; params: Record<string, unknown>; deadline: string }): boolean;
}

export interface CloudOptions {
  failuresToOpen: number;
  openMs: number;
  retries: number;
}

export const DEFAULT_CLOUD: CloudOptions = { failuresToOpen: 5, openMs: 30_000, retries: 1 };

/**
 * Cloud calls over MQTT with a deadline each. Offline, or with the circuit open (after 5
 * consecutive failures, for 30 s), a caller gets SYNC_OFFLINE at once instead of waiting, so a
 * scene can say "not now" straight away. Only idempotent methods are retried.
 */
export class CloudClient {
  private readonly waiting = new Map<string, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private failures = 0;
  private openUntil = 0;

  constructor(
    private readonly transport: RpcTransport,
    private readonly opts: CloudOptions = DEFAULT_CLOUD,
    private readonly now: () => number = Date.now,
  ) {}

  get available(): boolean {
    return this.transport.connected && this.now() >= this.openUntil;
  }

  async call(method: Method, params: Record<string, unknown>, deadlineMs: number): Promise<Record<string, unknown>> {
    let attempt = 0;
    for (;;) {
      try {
        return await this.once(method, params, deadlineMs);
      } catch (err) {
        const retryable = IDEMPOTENT.has(method) && attempt < this.opts.retries && err instanceof LampError && err.code === ErrorCode.SYNC_TIMEOUT;
        if (!retryable) throw err;
        attempt++;
      }
    }
  }

  private once(method: Method, params: Record<string, unknown>, deadlineMs: number): Promise<Record<string, unknown>> {
    if (!this.transport.connected) return Promise.reject(new LampError(ErrorCode.SYNC_OFFLINE, 'the cloud is not reachable now', { method }));
    if (this.now() < this.openUntil) return Promise.reject(new LampError(ErrorCode.SYNC_OFFLINE, 'cloud calls are paused after repeated failures', { method }));
    const id = randomUUID();
    const deadline = new Date(this.now() + deadlineMs).toISOString();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        this.failed();
        reject(new LampError(ErrorCode.SYNC_TIMEOUT, `cloud call ${method} passed its deadline of ${deadlineMs} ms`, { method }));
      }, deadlineMs);
      this.waiting.set(id, { resolve, reject, timer });
      if (!this.transport.send({ id, method, params, deadline })) {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(new LampError(ErrorCode.SYNC_OFFLINE, 'the cloud is not reachable now', { method }));
      }
    });
  }

  /** A response from the cloud; one for no waiting call (late, or not ours) is dropped. */
  onResponse(res: RpcResponse): boolean {
    const w = this.waiting.get(res.id);
    if (!w) return false;
    this.waiting.delete(res.id);
    clearTimeout(w.timer);
    if ('result' in res) {
      this.failures = 0;
      w.resolve(res.result);
    } else {
      this.failed();
      w.reject(new LampError(ErrorCode.SYNC_REJECTED, `the cloud answered with an error: ${res.error.code}: ${res.error.message}`, { code: res.error.code }));
    }
    return true;
  }

  private failed(): void {
    if (++this.failures >= this.opts.failuresToOpen) {
      this.openUntil = this.now() + this.opts.openMs;
      this.failures = 0;
    }
  }

  /** Fails every waiting call (the lamp is stopping). */
  close(): void {
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new LampError(ErrorCode.SYNC_OFFLINE, 'the lamp is stopping', {}));
      this.waiting.delete(id);
    }
  }

  health(): Record<string, unknown> {
    return { waiting: this.waiting.size, circuit: this.now() < this.openUntil ? 'open' : 'closed' };
  }
}
