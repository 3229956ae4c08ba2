import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { type App, createApp } from '../../runtime/app.js';
import { loadConfig } from '../../runtime/config/load.js';
import type { LampConfig } from '../../runtime/config/schema.js';

export function tempDir(prefix = 'lamp-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A whole lamp in this process, on simulator drivers, a fresh data dir and a free port. */
export async function startTestApp(env: Record<string, string> = {}): Promise<App & { url: string; token: string; stop: () => Promise<void> }> {
  const dataDir = tempDir();
  const config: LampConfig = loadConfig({
    // Voice and the OCR warm-up are off unless a test asks: they cost CPU that other tests need.
    env: { LAMP_DATA_DIR: dataDir, LAMP_HTTP_PORT: '0', LAMP_HTTP_TOKEN: 'test-token-0123456789', LAMP_VOICE_ENABLED: 'false', LAMP_HOMEWORK_WARM_UP: 'false', ...env },
  });
  const app = createApp(config, pino({ level: 'silent' }));
  await app.lifecycle.start();
  const { port } = app.http.address;
  return { ...app, url: `http://127.0.0.1:${port}`, token: config.http.token ?? '', stop: async () => void (await app.lifecycle.stop()) };
}
