import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../runtime/paths.js';
import { ackSchema, batchSchema, commandSchema, parsePayload, upRecordSchema } from './contract.js';
import { mqttReference } from './contract-docs.js';

describe('wire contract', () => {
  it('docs/mqtt.md is generated from the schemas', () => {
    expect(readFileSync(path.join(projectRoot(), 'docs', 'mqtt.md'), 'utf8')).toBe(mqttReference());
  });

  it('accepts a record of the documented shape and rejects what deviates', () => {
    const rec = { id: '0b1e5a0e-8a55-4f7a-9c3e-1d2f3a4b5c6d', seq: 1, stream: 'event', schema: 1, ts: '2026-11-22T10:00:00.000Z', data: {} };
    expect(parsePayload(upRecordSchema, Buffer.from(JSON.stringify(rec))).ok).toBe(true);
    expect(parsePayload(batchSchema, Buffer.from(JSON.stringify({ records: [rec] }))).ok).toBe(true);
    for (const bad of [{ ...rec, seq: 0 }, { ...rec, stream: 'secrets' }, { ...rec, extra: 1 }, { ...rec, ts: 'yesterday' }]) {
      expect(parsePayload(upRecordSchema, Buffer.from(JSON.stringify(bad))).ok).toBe(false);
    }
  });

  it('rejects inbound garbage with a reason', () => {
    expect(parsePayload(ackSchema, Buffer.from('nope'))).toEqual({ ok: false, reason: 'not JSON' });
    expect(parsePayload(ackSchema, Buffer.from('{"acked_seq": -1}'))).toMatchObject({ ok: false });
    expect(parsePayload(ackSchema, Buffer.alloc(300 * 1024, 0x20))).toMatchObject({ ok: false, reason: expect.stringContaining('over') });
    expect(parsePayload(commandSchema, Buffer.from('{"id":"0b1e5a0e-8a55-4f7a-9c3e-1d2f3a4b5c6d","name":"reboot","params":{}}'))).toMatchObject({ ok: false });
  });
});
