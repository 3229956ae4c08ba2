import type { Logger } from './log.js';

/**
 * systemd notifications (Type=notify): READY=1 once started, WATCHDOG=1 at half the watchdog
 * interval, STOPPING=1 on shutdown. Without NOTIFY_SOCKET (not under systemd) it does nothing.
 */
export interface Notifier {
  ready(status?: string): void;
  stopping(): void;
}

const NOOP: Notifier = { ready: () => {}, stopping: () => {} };

export async function createNotifier(log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<Notifier> {
  if (!env.NOTIFY_SOCKET) return NOOP;
  let sd: (typeof import('sd-notify'))['default'];
  try {
    sd = (await import('sd-notify')).default;
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'NOTIFY_SOCKET is set but sd-notify is not installed; systemd will not see READY');
    return NOOP;
  }
  let timer: NodeJS.Timeout | undefined;
  return {
    ready(status) {
      sd.ready();
      if (status) sd.sendStatus(status);
      const intervalMs = sd.watchdogInterval();
      if (intervalMs > 0) {
        timer = setInterval(() => sd.watchdog(), Math.max(500, Math.floor(intervalMs / 2)));
        timer.unref();
        log.info({ intervalMs }, 'systemd watchdog enabled');
      }
    },
    stopping() {
      if (timer) clearInterval(timer);
      sd.stopping(process.pid);
    },
  };
}
