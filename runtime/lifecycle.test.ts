import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from './errors.js';
import { type Component, Lifecycle, startOrder } from './lifecycle.js';

const log = pino({ level: 'silent' });

function recorder(events: string[], name: string, deps: string[] = [], opts: { failStart?: boolean; hangStop?: boolean } = {}): Component {
  return {
    name,
    dependsOn: deps,
    async start() {
      if (opts.failStart) throw new Error(`${name} broke`);
      events.push(`start ${name}`);
    },
    async stop() {
      if (opts.hangStop) await new Promise(() => {});
      events.push(`stop ${name}`);
    },
    health: () => ({ detail: name }),
  };
}

describe('Lifecycle', () => {
  it('starts in dependency order and stops in reverse', async () => {
    const events: string[] = [];
    const lc = new Lifecycle([recorder(events, 'http', ['pipeline']), recorder(events, 'pipeline', ['storage']), recorder(events, 'storage')], log, 1000);
    await lc.start();
    expect(lc.allRunning()).toBe(true);
    expect(lc.health().http).toEqual({ state: 'running', detail: 'http' });
    await lc.stop();
    expect(events).toEqual(['start storage', 'start pipeline', 'start http', 'stop http', 'stop pipeline', 'stop storage']);
    expect(lc.health().storage?.state).toBe('stopped');
  });

  it('a failed start stops what already started and reports the component', async () => {
    const events: string[] = [];
    const lc = new Lifecycle([recorder(events, 'a'), recorder(events, 'b', ['a'], { failStart: true }), recorder(events, 'c', ['b'])], log, 1000);
    const err = await lc.start().catch((e: unknown) => e);
    expect(isLampError(err, ErrorCode.LIFECYCLE_START_FAILED)).toBe(true);
    expect(events).toEqual(['start a', 'stop a']);
    expect(lc.health().b?.state).toBe('failed');
    expect(lc.health().c?.state).toBe('stopped');
  });

  it('a stop that hangs is cut off by the timeout and the rest still stop', async () => {
    const events: string[] = [];
    const lc = new Lifecycle([recorder(events, 'a'), recorder(events, 'stuck', ['a'], { hangStop: true })], log, 50);
    await lc.start();
    const failures = await lc.stop();
    expect(failures).toEqual(['stuck']);
    expect(events).toContain('stop a');
    expect(lc.health().stuck?.error).toMatch(/LAMP-6002/);
  });

  it('rejects cycles and unknown dependencies', () => {
    const e: string[] = [];
    expect(() => startOrder([recorder(e, 'a', ['b']), recorder(e, 'b', ['a'])])).toThrow(/cycle: a → b → a/);
    expect(() => startOrder([recorder(e, 'a', ['nope'])])).toThrow(/unknown component nope/);
  });
});
