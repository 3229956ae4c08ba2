import { createApp } from '../app.js';
import type { LampConfig } from '../config/schema.js';
import { isLampError } from '../errors.js';
import type { Logger } from '../log.js';
import { createNotifier } from '../notify.js';
import { VERSION, gitRevision } from '../version.js';

/**
 * Runs the lamp until SIGINT/SIGTERM, then stops every component in reverse order and exits 0.
 * Signals are handled from the first moment, also during start; a second signal more than a
 * second later, while still stopping, exits at once (130).
 */
export async function startCommand(config: LampConfig, log: Logger): Promise<number> {
  const t0 = performance.now();
  let signalled: (signal: NodeJS.Signals) => void = () => {};
  const stopRequested = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
  let stoppingSince = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    // Ctrl-C under `npm start` arrives twice at once (from the terminal and forwarded by npm):
    // only a second signal a moment later means "exit now".
    if (stoppingSince && performance.now() - stoppingSince < 1000) return;
    if (stoppingSince) {
      log.warn({ signal }, 'second signal while stopping; exiting now');
      process.exit(130);
    }
    stoppingSince = performance.now();
    signalled(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const notifier = await createNotifier(log);
  const app = createApp(config, log);
  try {
    await app.lifecycle.start();
  } catch (err) {
    log.fatal({ err: isLampError(err) ? err.toJSON() : err }, 'lamp failed to start');
    // A configuration problem found while starting (e.g. credentials readable by others) is
    // still a configuration problem: 78, which systemd does not restart into.
    return isLampError(err) && err.code >= 1000 && err.code < 2000 ? 78 : 1;
  }
  const { host, port } = app.http.address;
  log.info(
    { version: VERSION, revision: gitRevision(), ms: Math.round(performance.now() - t0), url: `http://${host}:${port}/`, dataDir: config.dataDir, cloud: config.mqtt.url ? 'configured' : 'offline' },
    'lamp ready',
  );
  notifier.ready(`serving on ${host}:${port}`);

  const signal = await stopRequested;
  log.info({ signal }, 'stopping');
  notifier.stopping();
  app.bus.emit('lamp.stopping', {});
  const failures = await app.lifecycle.stop();
  log.info({ failures }, 'lamp stopped');
  // The handlers stay until the process exits: a duplicate signal arriving late (npm forwards
  // Ctrl-C a moment after the terminal sent it) must not kill the process on its way out.
  return failures.length === 0 ? 0 : 1;
}
