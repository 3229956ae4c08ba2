import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Secrets never reach a log line, whatever the level. Field names, not values: pino removes them
 * from any object that is logged.
 */
const REDACT = [
  'token',
  'password',
  'secret',
  '*.token',
  '*.password',
  '*.secret',
  'http.token',
  'mqtt.password',
  'headers.authorization',
  'req.headers.authorization',
];

export interface LogOptions {
  level: string;
  format: 'auto' | 'json' | 'pretty';
  /** Stream for JSON lines; default stdout. Tests pass their own. */
  destination?: NodeJS.WritableStream;
}

/** The root logger, named `lamp`; each module logs through `child(log, 'sync')`, which adds `"module": "sync"`. */
export async function createLogger(opts: LogOptions): Promise<Logger> {
  const options: LoggerOptions = {
    name: 'lamp',
    level: opts.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  const pretty = opts.format === 'pretty' || (opts.format === 'auto' && !opts.destination && process.stdout.isTTY === true);
  if (pretty) {
    // Imported only when needed: it costs start-up time that a service under systemd does not need.
    const { default: prettyStream } = await import('pino-pretty');
    return pino(options, prettyStream({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name,module', messageFormat: '{if module}lamp:{module} {end}{msg}' }));
  }
  return pino(options, (opts.destination as pino.DestinationStream | undefined) ?? pino.destination({ fd: 1, sync: true }));
}

const moduleLoggers = new Set<Logger>();

export function child(log: Logger, module: string, bindings: Record<string, unknown> = {}): Logger {
  const c = log.child({ ...bindings, module });
  moduleLoggers.add(c);
  return c;
}

/** Changes the level of the root logger and of every module logger made from it (a live setting). */
export function setLevel(root: Logger, level: string): void {
  root.level = level;
  for (const c of moduleLoggers) c.level = level;
}

/**
 * What may be logged of what a child said. At info level only its length; the text itself only
 * at debug level, which field devices do not run at.
 */
export function utteranceForLog(log: Logger, text: string): Record<string, unknown> {
  return log.isLevelEnabled('debug') ? { chars: [...text].length, text } : { chars: [...text].length };
}
