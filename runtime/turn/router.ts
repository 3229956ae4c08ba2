import type { Confidence, Intent, SceneName, Slots } from '../../scenes/types.js';

export interface Route {
  intent: Intent;
  confidence: Confidence;
  slots: Slots;
}

export interface Router {
  route(text: string, scene: SceneName): Route;
}

/**
 * The router until the trained intent classifier lands: everything is chat. The pipeline already
 * calls it through the Router port, so the classifier replaces only this object.
 */
export const chatOnlyRouter: Router = {
  route: () => ({ intent: 'chat', confidence: 'HIGH', slots: {} }),
};
