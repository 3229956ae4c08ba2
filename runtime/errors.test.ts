import { describe, expect, it } from 'vitest';
import { ErrorCode, LampError, formatCode, isLampError, isRetryable, toLampError } from './errors.js';

describe('LampError', () => {
  it('appends the code to the message and keeps context', () => {
    const err = new LampError(ErrorCode.DRIVER_IO, 'serial write failed', { port: '/dev/ttyS1' });
    expect(err.message).toBe('serial write failed (LAMP-2003)');
    expect(err.code).toBe(2003);
    expect(err.context).toEqual({ port: '/dev/ttyS1' });
    expect(err.toJSON()).toMatchObject({ code: 'LAMP-2003' });
  });

  it('codes are unique', () => {
    const values = Object.values(ErrorCode);
    expect(new Set(values).size).toBe(values.length);
  });

  it('retryable: transient device and network failures only', () => {
    expect(isRetryable(new LampError(ErrorCode.SYNC_OFFLINE, 'x'))).toBe(true);
    expect(isRetryable(new LampError(ErrorCode.CONFIG_INVALID, 'x'))).toBe(false);
    expect(isRetryable(new Error('plain'))).toBe(false);
  });

  it('wraps foreign errors once, keeping the cause', () => {
    const cause = new Error('EIO');
    const wrapped = toLampError(cause, ErrorCode.STORAGE_CORRUPT, 'cannot open');
    expect(wrapped.code).toBe(ErrorCode.STORAGE_CORRUPT);
    expect(wrapped.message).toBe(`cannot open: EIO (${formatCode(ErrorCode.STORAGE_CORRUPT)})`);
    expect(wrapped.cause).toBe(cause);
    expect(toLampError(wrapped, ErrorCode.DRIVER_IO, 'again')).toBe(wrapped);
    expect(isLampError(wrapped, ErrorCode.STORAGE_CORRUPT)).toBe(true);
    expect(isLampError(wrapped, ErrorCode.DRIVER_IO)).toBe(false);
  });
});
