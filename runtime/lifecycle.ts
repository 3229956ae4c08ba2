import type { Logger } from 'pino';
import { ErrorCode, LampError, toLampError } from './errors.js';

export type ComponentState = 'stopped' | 'starting' | 'running' | 'stopping' | 'failed';

export interface Component {
  readonly name: string;
  /** Names of components that must be running before this one starts. */
  readonly dependsOn?: readonly string[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Extra detail for /healthz and `lamp doctor`; must be cheap and must not throw. */
  health?(): Record<string, unknown>;
}

export interface ComponentHealth {
  state: ComponentState;
  error?: string;
  [key: string]: unknown;
}

/** Orders components so that each comes after everything it depends on. */
export function startOrder(components: readonly Component[]): Component[] {
  const byName = new Map(components.map((c) => [c.name, c]));
  const ordered: Component[] = [];
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (c: Component, path: string[]): void => {
    if (done.has(c.name)) return;
    if (visiting.has(c.name)) {
      throw new LampError(ErrorCode.LIFECYCLE_CYCLE, `component dependency cycle: ${[...path, c.name].join(' → ')}`);
    }
    visiting.add(c.name);
    for (const dep of c.dependsOn ?? []) {
      const d = byName.get(dep);
      if (!d) throw new LampError(ErrorCode.LIFECYCLE_START_FAILED, `component ${c.name} depends on unknown component ${dep}`);
      visit(d, [...path, c.name]);
    }
    visiting.delete(c.name);
    done.add(c.name);
    ordered.push(c);
  };
  for (const c of components) visit(c, []);
  return ordered;
}

function withTimeout<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts components in dependency order and stops them in reverse, each stop bounded by a
 * timeout so one stuck device cannot keep the lamp from shutting down.
 */
export class Lifecycle {
  private readonly states = new Map<string, { state: ComponentState; error?: string }>();
  private started: Component[] = [];
  private readonly ordered: Component[];

  constructor(
    components: readonly Component[],
    private readonly log: Logger,
    private readonly stopTimeoutMs: number,
  ) {
    this.ordered = startOrder(components);
    for (const c of this.ordered) this.states.set(c.name, { state: 'stopped' });
  }

  async start(): Promise<void> {
    for (const c of this.ordered) {
      this.states.set(c.name, { state: 'starting' });
      const t0 = performance.now();
      try {
        await c.start();
      } catch (err) {
        const lampErr = toLampError(err, ErrorCode.LIFECYCLE_START_FAILED, `component ${c.name} failed to start`, { component: c.name });
        this.states.set(c.name, { state: 'failed', error: lampErr.message });
        this.log.error({ err: lampErr, component: c.name }, 'component failed to start; stopping the others');
        await this.stop();
        throw lampErr;
      }
      this.started.push(c);
      this.states.set(c.name, { state: 'running' });
      this.log.debug({ component: c.name, ms: Math.round(performance.now() - t0) }, 'component started');
    }
  }

  /** Stops every started component in reverse order. Never throws; returns the failures. */
  async stop(): Promise<string[]> {
    const failures: string[] = [];
    for (const c of [...this.started].reverse()) {
      this.states.set(c.name, { state: 'stopping' });
      try {
        await withTimeout(c.stop(), this.stopTimeoutMs, () =>
          new LampError(ErrorCode.LIFECYCLE_STOP_TIMEOUT, `component ${c.name} did not stop within ${this.stopTimeoutMs} ms`, { component: c.name }),
        );
        this.states.set(c.name, { state: 'stopped' });
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        this.states.set(c.name, { state: 'failed', error: msg });
        this.log.error({ err, component: c.name }, 'component failed to stop cleanly');
        failures.push(c.name);
      }
    }
    this.started = [];
    return failures;
  }

  health(): Record<string, ComponentHealth> {
    const out: Record<string, ComponentHealth> = {};
    for (const c of this.ordered) {
      const s = this.states.get(c.name) ?? { state: 'stopped' as const };
      let detail: Record<string, unknown> = {};
      if (s.state === 'running' && c.health) {
        try {
          detail = c.health();
        } catch (err) {
          detail = { healthError: err instanceof Error ? err.message : String(err) };
        }
      }
      out[c.name] = { ...detail, ...s };
    }
    return out;
  }

  allRunning(): boolean {
    return [...this.states.values()].every((s) => s.state === 'running');
  }
}
