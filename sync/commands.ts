import type { Database, Statement } from 'better-sqlite3';
import type { Logger } from 'pino';
import { type Material, isMaterial } from '../scenes/recite/material.js';
import type { Command } from './contract.js';

export interface CommandResult {
  ok: boolean;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
}

export interface CommandDeps {
  db: Database;
  log: Logger;
  /** Applies a live configuration value; returns an error text when the key or value is not allowed. */
  setConfig(path: string, value: unknown): string | undefined;
  addMaterials(materials: Material[]): void;
  /** Health and redacted config, for a technician's log bundle. */
  bundle(): Record<string, unknown>;
  /** Results of work queued for the cloud (e.g. grading) arriving later. */
  deliver(params: Record<string, unknown>): void;
}

const bad = (message: string): CommandResult => ({ ok: false, error: { code: 'bad_params', message } });

/**
 * Commands from the cloud. Each id is executed at most once: a repeated delivery (QoS 1 may
 * deliver twice) gets the stored result again.
 */
export class CommandHandler {
  private readonly seen: Statement<[string], { ok: number; result_json: string }>;
  private readonly remember: Statement<[string, string, number, string, string]>;
  private readonly saveMaterial: Statement<[string, string, string]>;
  private readonly setMeta: Statement<[string, string, string]>;

  constructor(private readonly deps: CommandDeps) {
    const { db } = deps;
    this.seen = db.prepare('SELECT ok, result_json FROM command_log WHERE id = ?');
    this.remember = db.prepare('INSERT INTO command_log (id, name, ok, result_json, created_at) VALUES (?, ?, ?, ?, ?)');
    this.saveMaterial = db.prepare('INSERT INTO material (id, json, pushed_at) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json, pushed_at = excluded.pushed_at');
    this.setMeta = db.prepare('INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at');
  }

  /** Materials pushed earlier, to merge into the library at start. */
  static pushedMaterials(db: Database): Material[] {
    return (db.prepare('SELECT json FROM material ORDER BY pushed_at').all() as { json: string }[]).map((r) => JSON.parse(r.json) as Material).filter(isMaterial);
  }

  handle(cmd: Command): CommandResult {
    const before = this.seen.get(cmd.id);
    if (before) return before.ok ? { ok: true, result: JSON.parse(before.result_json) as Record<string, unknown> } : { ok: false, error: JSON.parse(before.result_json) as CommandResult['error'] };
    const now = new Date().toISOString();
    const outcome = this.deps.db.transaction((): CommandResult => {
      const r = this.execute(cmd, now);
      this.remember.run(cmd.id, cmd.name, r.ok ? 1 : 0, JSON.stringify(r.ok ? (r.result ?? {}) : r.error), now);
      return r;
    })();
    this.deps.log.info({ command: cmd.name, id: cmd.id, ok: outcome.ok }, 'cloud command');
    return outcome;
  }

  private execute(cmd: Command, now: string): CommandResult {
    const p = cmd.params;
    switch (cmd.name) {
      case 'push_materials': {
        const list = Array.isArray(p.materials) ? p.materials : undefined;
        if (!list || list.length === 0) return bad('params.materials must be a non-empty array');
        const badOnes = list.filter((m) => !isMaterial(m));
        if (badOnes.length) return bad(`${badOnes.length} material(s) are malformed; nothing was stored`);
        for (const m of list as Material[]) this.saveMaterial.run(m.id, JSON.stringify(m), now);
        this.deps.addMaterials(list as Material[]);
        return { ok: true, result: { stored: list.length } };
      }
      case 'set_learning_plan': {
        if (typeof p.plan !== 'object' || p.plan === null) return bad('params.plan must be an object');
        this.setMeta.run('learning_plan', JSON.stringify(p.plan), now);
        return { ok: true, result: {} };
      }
      case 'set_config': {
        if (typeof p.path !== 'string') return bad('params.path must name a live configuration field');
        const err = this.deps.setConfig(p.path, p.value);
        return err ? bad(err) : { ok: true, result: { path: p.path } };
      }
      case 'request_log_bundle':
        return { ok: true, result: this.deps.bundle() };
      case 'deliver_result':
        this.deps.deliver(p);
        return { ok: true, result: {} };
    }
  }
}
