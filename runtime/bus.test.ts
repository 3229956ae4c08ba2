import { describe, expect, it, vi } from 'vitest';
import { EventBus } from './bus.js';

interface Events {
  ping: { n: number };
  other: string;
}

describe('EventBus', () => {
  it('delivers typed payloads to every listener of the event', () => {
    const bus = new EventBus<Events>({ error: vi.fn() });
    const got: number[] = [];
    bus.on('a', 'ping', (p) => void got.push(p.n));
    bus.on('b', 'ping', (p) => void got.push(p.n * 10));
    bus.on('b', 'other', () => void got.push(-1));
    bus.emit('ping', { n: 2 });
    expect(got).toEqual([2, 20]);
  });

  it("one listener's exception, sync or async, does not stop the others and is logged", async () => {
    const error = vi.fn();
    const bus = new EventBus<Events>({ error });
    const got: string[] = [];
    bus.on('bad', 'ping', () => {
      throw new Error('boom');
    });
    bus.on('bad-async', 'ping', async () => {
      throw new Error('later');
    });
    bus.on('good', 'ping', () => void got.push('good'));
    bus.emit('ping', { n: 1 });
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['good']);
    expect(error).toHaveBeenCalledTimes(2);
    expect(error.mock.calls.map((c) => (c[0] as { owner: string }).owner).sort()).toEqual(['bad', 'bad-async']);
  });

  it('stop(owner) removes all listeners of that owner only', () => {
    const bus = new EventBus<Events>({ error: vi.fn() });
    const got: string[] = [];
    bus.on('a', 'ping', () => void got.push('a'));
    bus.on('a', 'other', () => void got.push('a2'));
    bus.on('b', 'ping', () => void got.push('b'));
    bus.stop('a');
    bus.emit('ping', { n: 1 });
    bus.emit('other', 'x');
    expect(got).toEqual(['b']);
    expect(bus.listenerCount('a')).toBe(0);
    expect(bus.listenerCount()).toBe(1);
  });

  it('the unsubscribe function removes one listener', () => {
    const bus = new EventBus<Events>({ error: vi.fn() });
    const got: string[] = [];
    const off = bus.on('a', 'ping', () => void got.push('a'));
    off();
    bus.emit('ping', { n: 1 });
    expect(got).toEqual([]);
  });
});
