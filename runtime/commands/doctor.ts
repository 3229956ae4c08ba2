import { execFileSync } from 'node:child_process';
import { existsSync, statfsSync } from 'node:fs';
import { DEVICE_KINDS, bindingAvailable } from '../../drivers/index.js';
import { probeRealDevice } from '../../drivers/probe.js';
import { checkModel, loadManifest, modelsDirOf } from '../../models/manifest.js';
import { databasePath, ensureDataDir, integrityCheck, openDatabase } from '../../sync/db.js';
import { LATEST_VERSION, schemaVersion } from '../../sync/migrations.js';
import { readCredentials } from '../../sync/service.js';
import { loadConfig } from '../config/load.js';
import type { LampConfig } from '../config/schema.js';
import { isLampError } from '../errors.js';

export type CheckStatus = 'ok' | 'warn' | 'FAIL';

export interface CheckRow {
  check: string;
  status: CheckStatus;
  detail: string;
}

const MIN_FREE_MB = 50;
const WARN_FREE_MB = 500;

function message(err: unknown): string {
  return isLampError(err) ? err.message : err instanceof Error ? err.message : String(err);
}

function hasCommand(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function checkDatabase(config: LampConfig): CheckRow {
  const file = databasePath(config.dataDir);
  if (!existsSync(file)) return { check: 'database', status: 'ok', detail: `${file} does not exist yet; created at first start` };
  try {
    const db = openDatabase(file, { readonly: true, migrate: false });
    try {
      const problems = integrityCheck(db);
      if (problems.length !== 1 || problems[0] !== 'ok') return { check: 'database', status: 'FAIL', detail: `integrity_check: ${problems.slice(0, 3).join('; ')}` };
      const version = schemaVersion(db);
      if (version > LATEST_VERSION) return { check: 'database', status: 'FAIL', detail: `schema ${version} is newer than this runtime (${LATEST_VERSION})` };
      const note = version < LATEST_VERSION ? `; migrates ${version} → ${LATEST_VERSION} at next start` : '';
      const queued = version >= 1 ? (db.prepare('SELECT count(*) AS n, min(ts) AS oldest FROM outbox').get() as { n: number; oldest: string | null }) : { n: 0, oldest: null };
      const outbox = queued.n ? `; ${queued.n} record(s) waiting for the cloud since ${queued.oldest}` : '; nothing waiting for the cloud';
      return { check: 'database', status: 'ok', detail: `integrity ok, schema ${version}${note}${outbox}` };
    } finally {
      db.close();
    }
  } catch (err) {
    return { check: 'database', status: 'FAIL', detail: message(err) };
  }
}

/** Every check the technician's `lamp doctor` runs, in order. Never throws. */
export function runChecks(configFile?: string, env: NodeJS.ProcessEnv = process.env): CheckRow[] {
  const rows: CheckRow[] = [];
  let config: LampConfig;
  try {
    config = loadConfig({ file: configFile, env });
    rows.push({ check: 'config', status: 'ok', detail: configFile ?? env.LAMP_CONFIG ?? 'defaults + LAMP_* environment' });
  } catch (err) {
    rows.push({ check: 'config', status: 'FAIL', detail: message(err).trim() });
    return rows;
  }

  try {
    ensureDataDir(config.dataDir);
    rows.push({ check: 'data dir', status: 'ok', detail: `${config.dataDir} writable` });
    const fs = statfsSync(config.dataDir);
    const freeMb = Math.floor((fs.bavail * fs.bsize) / 1_048_576);
    const status: CheckStatus = freeMb < MIN_FREE_MB ? 'FAIL' : freeMb < WARN_FREE_MB ? 'warn' : 'ok';
    rows.push({ check: 'disk', status, detail: `${freeMb} MB free in ${config.dataDir} (needs ${MIN_FREE_MB} MB)` });
    rows.push(checkDatabase(config));
  } catch (err) {
    rows.push({ check: 'data dir', status: 'FAIL', detail: message(err) });
  }

  for (const kind of DEVICE_KINDS) {
    const binding = config.drivers[kind];
    const available = bindingAvailable(kind, binding);
    if (!available) {
      rows.push({ check: `driver ${kind}`, status: 'FAIL', detail: `no ${binding} binding in this build` });
    } else if (binding === 'real' && (kind === 'camera' || kind === 'microphone' || kind === 'speaker' || kind === 'button')) {
      const probe = probeRealDevice(kind, config);
      rows.push({ check: `driver ${kind}`, status: probe.ok ? 'ok' : 'FAIL', detail: `real: ${probe.detail}` });
    } else rows.push({ check: `driver ${kind}`, status: 'ok', detail: binding });
  }

  try {
    for (const model of loadManifest()) {
      const r = checkModel(modelsDirOf(config), model);
      const detail = r.status === 'present' ? `${r.detail} (${r.location})` : r.status === 'unverified' ? `${r.detail} (${r.location})` : `${r.status}: ${r.detail}; without it: ${r.without}`;
      rows.push({ check: `model ${r.name}`, status: r.status === 'present' ? 'ok' : 'warn', detail });
    }
  } catch (err) {
    rows.push({ check: 'model manifest', status: 'FAIL', detail: message(err) });
  }

  const espeak = hasCommand('espeak-ng');
  rows.push({ check: 'tool espeak-ng', status: espeak ? 'ok' : 'warn', detail: espeak ? 'fallback voice available' : 'missing: the lamp shows replies but cannot speak without a TTS model' });
  for (const [cmd, kind] of [['arecord', 'microphone'], ['aplay', 'speaker']] as const) {
    const needed = config.drivers[kind] === 'real';
    const present = hasCommand(cmd);
    rows.push({ check: `tool ${cmd}`, status: present ? 'ok' : needed ? 'FAIL' : 'warn', detail: present ? 'present' : `missing (apt install alsa-utils)${needed ? `; the real ${kind} needs it` : ''}` });
  }

  if (config.mqtt.credentialsFile) {
    try {
      readCredentials(config.mqtt.credentialsFile);
      rows.push({ check: 'credentials', status: 'ok', detail: `${config.mqtt.credentialsFile} (mode 0600)` });
    } catch (err) {
      rows.push({ check: 'credentials', status: 'FAIL', detail: message(err) });
    }
  }
  for (const key of ['caFile', 'certFile', 'keyFile'] as const) {
    const file = config.mqtt[key];
    if (file) rows.push({ check: `tls ${key}`, status: existsSync(file) ? 'ok' : 'FAIL', detail: existsSync(file) ? file : `${file} does not exist` });
  }
  rows.push({ check: 'cloud', status: 'ok', detail: config.mqtt.url ? `broker ${config.mqtt.url.replace(/\/\/[^@/]*@/, '//***@')}` : 'offline: no broker configured, records stay queued' });
  return rows;
}

export function formatTable(rows: CheckRow[]): string {
  const w1 = Math.max(5, ...rows.map((r) => r.check.length));
  const lines = [`${'CHECK'.padEnd(w1)}  STATUS  DETAIL`];
  for (const r of rows) lines.push(`${r.check.padEnd(w1)}  ${r.status.padEnd(6)}  ${r.detail.replace(/\n\s*/g, ' | ')}`);
  return lines.join('\n');
}

export function doctorCommand(configFile: string | undefined, json: boolean): number {
  const rows = runChecks(configFile);
  const failed = rows.filter((r) => r.status === 'FAIL');
  if (json) console.log(JSON.stringify({ ok: failed.length === 0, checks: rows }, null, 2));
  else {
    console.log(formatTable(rows));
    console.log(failed.length === 0 ? '\nlamp doctor: all required checks pass' : `\nlamp doctor: ${failed.length} required check(s) failed`);
  }
  return failed.length === 0 ? 0 : 1;
}
