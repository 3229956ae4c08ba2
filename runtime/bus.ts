import type { Logger } from 'pino';

type Handler<P> = (payload: P) => void | Promise<void>;

interface Registration {
  owner: string;
  event: string;
  handler: Handler<unknown>;
}

/**
 * A typed event bus. Every listener is registered under its owner so that a component can
 * remove all of its listeners with `stop(owner)`, and every listener is wrapped so that one
 * component's exception (sync or async) is logged and cannot stop the others.
 */
export class EventBus<Events extends object> {
  private readonly registrations: Registration[] = [];

  constructor(private readonly log: Pick<Logger, 'error'>) {}

  on<K extends keyof Events & string>(owner: string, event: K, handler: Handler<Events[K]>): () => void {
    const reg: Registration = { owner, event, handler: handler as Handler<unknown> };
    this.registrations.push(reg);
    return () => this.remove(reg);
  }

  emit<K extends keyof Events & string>(event: K, payload: Events[K]): void {
    for (const reg of this.registrations.filter((r) => r.event === event)) {
      try {
        const result = reg.handler(payload);
        if (result instanceof Promise) result.catch((err: unknown) => this.report(reg, err));
      } catch (err) {
        this.report(reg, err);
      }
    }
  }

  /** Removes every listener of one owner. */
  stop(owner: string): void {
    for (const reg of this.registrations.filter((r) => r.owner === owner)) this.remove(reg);
  }

  listenerCount(owner?: string): number {
    return owner === undefined ? this.registrations.length : this.registrations.filter((r) => r.owner === owner).length;
  }

  private remove(reg: Registration): void {
    const i = this.registrations.indexOf(reg);
    if (i >= 0) this.registrations.splice(i, 1);
  }

  private report(reg: Registration, err: unknown): void {
    this.log.error({ err, owner: reg.owner, event: reg.event }, 'event listener failed');
  }
}
