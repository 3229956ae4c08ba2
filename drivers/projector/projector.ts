import type { Device } from '../device.js';

/** What the projector shows: a JSON card that the projector page renders. */
export type ProjectedCard = { readonly [key: string]: unknown };

export interface Projector extends Device {
  readonly kind: 'projector';
  show(card: ProjectedCard): Promise<void>;
  clear(): Promise<void>;
  /** The card on display now, for a page that connects later. */
  readonly current: ProjectedCard | undefined;
  onChange(fn: (card: ProjectedCard | undefined) => void): () => void;
}
