import type { Database, Statement } from 'better-sqlite3';
import { type ResetReason, validateSession } from './session-check.js';
import type { Confidence, Intent, SceneName, SceneState, Slots } from '../../scenes/types.js';

export interface PendingSwitch {
  target: SceneName;
  slots: Slots;
  age_turns: number;
}

export interface Session {
  id: string;
  /** Only the orchestrator changes it. */
  active_scene: SceneName;
  /** Keyed by scene; only the owning scene changes its entry. Kept when the child leaves a scene. */
  scene_states: Partial<Record<SceneName, SceneState>>;
  pending_switch: PendingSwitch | null;
  sticky_until: string | null;
  last_intent: { intent: Intent; confidence: Confidence } | null;
  last_activity: string;
  created_at: string;
  updated_at: string;
}

export const DEFAULT_SESSION_ID = 'default';

export function newSession(id: string, now: Date): Session {
  const ts = now.toISOString();
  return {
    id,
    active_scene: 'chat',
    scene_states: {},
    pending_switch: null,
    sticky_until: null,
    last_intent: null,
    last_activity: ts,
    created_at: ts,
    updated_at: ts,
  };
}

/** Session state in SQLite: one row per session, the whole state as JSON, written atomically. */
export class SessionStore {
  private readonly get: Statement<[string], { state_json: string }>;
  private readonly put: Statement<[string, string, string, string, string]>;

  constructor(db: Database) {
    this.get = db.prepare('SELECT state_json FROM session WHERE id = ?');
    this.put = db.prepare(
      `INSERT INTO session (id, active_scene, state_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET active_scene = excluded.active_scene, state_json = excluded.state_json, updated_at = excluded.updated_at`,
    );
  }

  /** Loads and validates (see session-check.ts); `reset` says why a stored session was not used as it was. */
  load(id: string, now: Date, idleMinutes = 30): { session: Session; reset?: ResetReason } {
    const row = this.get.get(id);
    if (!row) return { session: newSession(id, now) };
    let raw: unknown;
    try {
      raw = JSON.parse(row.state_json);
    } catch {
      raw = undefined;
    }
    return validateSession(raw, id, now, idleMinutes);
  }

  save(session: Session): void {
    this.put.run(session.id, session.active_scene, JSON.stringify(session), session.created_at, session.updated_at);
  }
}
