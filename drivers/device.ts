/** What every device driver has in common: it is opened and closed by the runtime's lifecycle. */
export interface Device {
  readonly kind: 'camera' | 'microphone' | 'speaker' | 'projector' | 'servo';
  /** 'simulator' or 'real': which binding is behind the interface. */
  readonly binding: string;
  open(): Promise<void>;
  /** Closing on purpose is not a failure: it must not trigger reconnect logic. */
  close(): Promise<void>;
  health(): Record<string, unknown>;
}

/** Listeners registered on a driver; `off()` removes one. */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  add(fn: (value: T) => void): () => void {
    this.set.add(fn);
    return () => this.set.delete(fn);
  }

  emit(value: T): void {
    for (const fn of [...this.set]) fn(value);
  }

  get size(): number {
    return this.set.size;
  }
}
