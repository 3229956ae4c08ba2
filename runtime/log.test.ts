import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { child, createLogger, utteranceForLog } from './log.js';

function sink(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, lines: () => chunks.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('logging', () => {
  it('writes JSON lines with the module of a child logger', async () => {
    const s = sink();
    const log = await createLogger({ level: 'info', format: 'json', destination: s.stream });
    child(log, 'sync').info({ n: 1 }, 'hello');
    expect(s.lines()[0]).toMatchObject({ name: 'lamp', module: 'sync', n: 1, msg: 'hello' });
  });

  it('never writes secrets, at any level', async () => {
    const s = sink();
    const log = await createLogger({ level: 'trace', format: 'json', destination: s.stream });
    log.info({ token: 'abc-secret', http: { token: 'def-secret' }, mqtt: { password: 'ghi-secret' } }, 'config');
    const text = JSON.stringify(s.lines());
    expect(text).not.toMatch(/abc-secret|def-secret|ghi-secret/);
    expect(text).toContain('[redacted]');
  });

  it("a child's utterance: only its length at info, the text at debug", async () => {
    const info = await createLogger({ level: 'info', format: 'json', destination: sink().stream });
    const debug = await createLogger({ level: 'debug', format: 'json', destination: sink().stream });
    expect(utteranceForLog(info, '床前明月光')).toEqual({ chars: 5 });
    expect(utteranceForLog(debug, '床前明月光')).toEqual({ chars: 5, text: '床前明月光' });
  });
});
