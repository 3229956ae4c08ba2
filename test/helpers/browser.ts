import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.LAMP_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Debian's Chromium, headless, with no network chatter. playwright's launch() gives every
 * browser a fresh temporary profile of its own (it refuses a --user-data-dir argument).
 */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
