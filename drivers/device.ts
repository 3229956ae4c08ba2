/** What every device driver has in common: it is opened and closed by the runtime's lifecycle. */
export interface Device {
  readonly kind: 'camera' | 'microphone' | 'speaker' | 'projector' | 'servo' | 'button';
  /** 'simulator' or 'real': which binding is behind the interface. */
  readonly binding: string;
  open(): Promise<void>;
  /** Closing on purpose is not a failure: it must not trigger reconnect logic. */
  close(): Promise<void>;
  health(): Record<string, unknown>;
}

/**
 * Listeners registered on a driver; `off()` removes one. A real binding passes `onError` so
 * that one consumer's exception cannot stop the others or escape into a stream's data handler
 * (where it would bring the process down); without it an exception reaches the caller, which is
 * what a test control wants.
 */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  constructor(private readonly onError?: (err: unknown) => void) {}

  add(fn: (value: T) => void): () => void {
    this.set.add(fn);
    return () => this.set.delete(fn);
  }

  emit(value: T): void {
    for (const fn of [...this.set]) {
      if (!this.onError) {
        fn(value);
        continue;
      }
      try {
        fn(value);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  get size(): number {
    return this.set.size;
  }
}
