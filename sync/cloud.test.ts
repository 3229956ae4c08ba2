import { describe, expect, it } from 'vitest';
import { ErrorCode, isLampError } from '../runtime/errors.js';
import { CloudClient } from './cloud.js';

type Req = { id: string; method: string; params: Record<string, unknown> };

function transport(answer: (req: Req, client: CloudClient) => void) {
  const sent: Req[] = [];
  let client: CloudClient | undefined;
  const t = {
    connected: true,
    send(req: Req & { deadline: string }) {
      sent.push(req);
      queueMicrotask(() => answer(req, client as CloudClient));
      return true;
    },
  };
  return { t, sent, bind: (c: CloudClient) => (client = c) };
}

describe('CloudClient', () => {
  it('returns the result of a call answered in time', async () => {
    const x = transport((req, c) => c.onResponse({ id: req.id, result: { tip: 'ok' } }));
    const c = new CloudClient(x.t);
    x.bind(c);
    expect(await c.call('memory_tip', {}, 1000)).toEqual({ tip: 'ok' });
  });

  it('retries an idempotent method once after a timeout, never chat', async () => {
    const x = transport(() => undefined); // never answers
    const c = new CloudClient(x.t, { failuresToOpen: 100, openMs: 1000, retries: 1 });
    x.bind(c);
    expect(isLampError(await c.call('memory_tip', {}, 20).catch((e: unknown) => e), ErrorCode.SYNC_TIMEOUT)).toBe(true);
    expect(x.sent.filter((r) => r.method === 'memory_tip')).toHaveLength(2);
    await c.call('chat', {}, 20).catch(() => undefined);
    expect(x.sent.filter((r) => r.method === 'chat')).toHaveLength(1);
  });

  it('opens the circuit after 5 consecutive failures: callers get "not now" at once for 30 s', async () => {
    let now = 0;
    const x = transport((req, c) => c.onResponse({ id: req.id, error: { code: 'busy', message: 'overloaded' } }));
    const c = new CloudClient(x.t, { failuresToOpen: 5, openMs: 30_000, retries: 0 }, () => now);
    x.bind(c);
    for (let i = 0; i < 5; i++) expect(isLampError(await c.call('chat', {}, 1000).catch((e: unknown) => e), ErrorCode.SYNC_REJECTED)).toBe(true);
    expect(c.available).toBe(false);
    expect(isLampError(await c.call('chat', {}, 1000).catch((e: unknown) => e), ErrorCode.SYNC_OFFLINE)).toBe(true);
    expect(x.sent).toHaveLength(5);
    now = 30_001;
    expect(c.available).toBe(true);
  });

  it('offline: SYNC_OFFLINE without sending; a late or unknown answer is dropped', async () => {
    const x = transport(() => undefined);
    x.t.connected = false;
    const c = new CloudClient(x.t);
    x.bind(c);
    expect(isLampError(await c.call('chat', {}, 1000).catch((e: unknown) => e), ErrorCode.SYNC_OFFLINE)).toBe(true);
    expect(x.sent).toHaveLength(0);
    expect(c.onResponse({ id: '00000000-0000-4000-8000-000000000000', result: {} })).toBe(false);
  });
});
