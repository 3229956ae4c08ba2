/**
 * The one error type of the runtime. Codes are stable (tests and technicians rely on them),
 * grouped by area in blocks of a thousand, and appended to the message: "… (LAMP-2103)".
 */
export const ErrorCode = {
  // 1xxx configuration
  CONFIG_INVALID: 1001,
  CONFIG_FILE_UNREADABLE: 1002,
  CONFIG_FILE_NOT_JSON: 1003,
  CONFIG_CREDENTIALS_MODE: 1004,
  // 2xxx drivers
  DRIVER_UNAVAILABLE: 2001,
  DRIVER_CLOSED: 2002,
  DRIVER_IO: 2003,
  DRIVER_PROTOCOL: 2004,
  DRIVER_NO_FRAME: 2005,
  // 3xxx models
  MODEL_MISSING: 3001,
  MODEL_CORRUPT: 3002,
  MODEL_LOAD_FAILED: 3003,
  MODEL_MANIFEST_INVALID: 3004,
  // 4xxx scenes and the turn pipeline
  SCENE_UNKNOWN: 4001,
  SCENE_STEP_FAILED: 4002,
  INPUT_REJECTED: 4003,
  // 5xxx storage and sync
  STORAGE_DIR_UNWRITABLE: 5001,
  STORAGE_NOT_SQLITE: 5002,
  STORAGE_CORRUPT: 5003,
  STORAGE_MIGRATION_FAILED: 5004,
  STORAGE_NEWER_SCHEMA: 5005,
  STORAGE_BUSY: 5006,
  SYNC_OFFLINE: 5101,
  SYNC_TIMEOUT: 5102,
  SYNC_REJECTED: 5103,
  // 6xxx runtime services
  LIFECYCLE_START_FAILED: 6001,
  LIFECYCLE_STOP_TIMEOUT: 6002,
  LIFECYCLE_CYCLE: 6003,
  HTTP_LISTEN_FAILED: 6101,
  API_UNAUTHORIZED: 6102,
  API_BAD_MESSAGE: 6103,
  API_TOO_LARGE: 6104,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

const RETRYABLE: ReadonlySet<ErrorCodeValue> = new Set<ErrorCodeValue>([
  ErrorCode.DRIVER_UNAVAILABLE,
  ErrorCode.DRIVER_IO,
  ErrorCode.DRIVER_NO_FRAME,
  ErrorCode.STORAGE_BUSY,
  ErrorCode.SYNC_OFFLINE,
  ErrorCode.SYNC_TIMEOUT,
]);

export function formatCode(code: ErrorCodeValue): string {
  return `LAMP-${code}`;
}

export class LampError extends Error {
  override readonly name = 'LampError';
  readonly code: ErrorCodeValue;
  readonly context: Record<string, unknown>;

  constructor(code: ErrorCodeValue, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(`${message} (${formatCode(code)})`, options);
    this.code = code;
    this.context = context;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: formatCode(this.code), message: this.message, context: this.context };
  }
}

export function isLampError(err: unknown, code?: ErrorCodeValue): err is LampError {
  return err instanceof LampError && (code === undefined || err.code === code);
}

/** Whether trying the same operation again later can succeed without anyone changing anything. */
export function isRetryable(err: unknown): boolean {
  return err instanceof LampError && RETRYABLE.has(err.code);
}

/** Wraps anything thrown into a LampError with the given code, keeping the original as cause. */
export function toLampError(err: unknown, code: ErrorCodeValue, message: string, context: Record<string, unknown> = {}): LampError {
  if (err instanceof LampError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new LampError(code, `${message}: ${detail}`, context, { cause: err });
}
