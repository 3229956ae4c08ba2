import { Listeners } from '../device.js';
import type { ProjectedCard, Projector } from './projector.js';

/** Simulated projector: the simulator page. It keeps the current card and tells the page of every change. */
export class SimProjector implements Projector {
  readonly kind = 'projector' as const;
  readonly binding = 'simulator';
  private readonly changes = new Listeners<ProjectedCard | undefined>();
  current: ProjectedCard | undefined;
  shown = 0;

  async open(): Promise<void> {}

  async close(): Promise<void> {}

  async show(card: ProjectedCard): Promise<void> {
    this.current = card;
    this.shown++;
    this.changes.emit(card);
  }

  async clear(): Promise<void> {
    this.current = undefined;
    this.changes.emit(undefined);
  }

  onChange(fn: (card: ProjectedCard | undefined) => void): () => void {
    return this.changes.add(fn);
  }

  health(): Record<string, unknown> {
    return { binding: this.binding, cardsShown: this.shown, viewers: this.changes.size };
  }
}
