import BetterSqlite3 from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchTruth } from '../scripts/homework-pages/match.js';
import { tempDir } from './helpers/app.js';
import { runCli, startLampProcess } from './helpers/lamp-process.js';

describe('lamp start (as a process)', () => {
  it('starts with no configuration, serves health, and stops cleanly on SIGINT with exit 0 and the database closed', async () => {
    const dataDir = tempDir();
    const lamp = await startLampProcess({ LAMP_DATA_DIR: dataDir });
    const health = (await (await fetch(`${lamp.url}/healthz`)).json()) as { status: string; mode: string };
    expect(health).toMatchObject({ status: 'ok', mode: 'simulator' });
    expect(lamp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    lamp.proc.kill('SIGINT');
    expect(await lamp.exited).toBe(0);
    expect(lamp.lines.some((l) => l.msg === 'lamp stopped')).toBe(true);
    // A clean close checkpoints the WAL and removes it; a crash would leave it behind.
    expect(existsSync(path.join(dataDir, 'lamp.db'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'lamp.db-wal'))).toBe(false);
    const token = path.join(dataDir, 'api-token');
    expect(readFileSync(token, 'utf8').trim().length).toBeGreaterThanOrEqual(16);
  });

  it('bad config: lists every invalid field with its path and exits 78', () => {
    const dataDir = tempDir();
    const cfg = path.join(dataDir, 'lamp.json');
    writeFileSync(cfg, JSON.stringify({ http: { port: 'eighty' }, drivers: { servo: 'lego' } }));
    const r = runCli(['--config', cfg, 'start'], { LAMP_DATA_DIR: dataDir, LAMP_LOG_LEVEL: 'chatty' });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('3 problem(s)');
    expect(r.stderr).toMatch(/http\.port: .*\[lamp\.json\]/);
    expect(r.stderr).toMatch(/drivers\.servo: /);
    expect(r.stderr).toMatch(/log\.level: .*\[LAMP_LOG_LEVEL\]/);
    expect(r.stderr).toContain('LAMP-1001');
  });

  it('an unwritable data directory: clear error, non-zero exit', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'file'), 'x');
    const r = runCli(['start'], { LAMP_DATA_DIR: path.join(dir, 'file', 'data') });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('LAMP-5001');
  });

  it('a database file that is not SQLite: clear error, file untouched, non-zero exit', () => {
    const dataDir = tempDir();
    const db = path.join(dataDir, 'lamp.db');
    writeFileSync(db, 'PK\u0003\u0004 not a database');
    const r = runCli(['start'], { LAMP_DATA_DIR: dataDir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('LAMP-5002');
    expect(readFileSync(db, 'utf8')).toBe('PK\u0003\u0004 not a database');
  });
});

describe('lamp doctor', () => {
  it('is green in simulator mode and prints a table', () => {
    const r = runCli(['doctor'], { LAMP_DATA_DIR: tempDir() });
    expect(r.stdout).toMatch(/^CHECK\s+STATUS\s+DETAIL/);
    expect(r.stdout).toMatch(/config\s+ok/);
    expect(r.stdout).toMatch(/model silero-vad\s+ok/);
    expect(r.stdout).toMatch(/driver camera\s+ok\s+simulator/);
    expect(r.stdout).toContain('all required checks pass');
    expect(r.code).toBe(0);
  });

  it('fails on a database that fails integrity_check, and says so', () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, 'lamp.db');
    const db = new BetterSqlite3(file);
    db.exec('CREATE TABLE t (x TEXT); CREATE INDEX t_x ON t(x);');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    for (let i = 0; i < 2000; i++) insert.run(`row-${i}`.repeat(5));
    const rootpage = (db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 't_x'").get() as { rootpage: number }).rootpage;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const bytes = readFileSync(file);
    bytes.fill(0, (rootpage - 1) * pageSize + 8, rootpage * pageSize); // wreck the index's root page
    writeFileSync(file, bytes);
    const r = runCli(['doctor', '--json'], { LAMP_DATA_DIR: dataDir });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: { check: string; status: string }[] };
    expect(out.ok).toBe(false);
    expect(out.checks.find((c) => c.check === 'database')?.status).toBe('FAIL');
  });

  it('fails when the device credentials file is readable by others, and passes at 0600', async () => {
    const { chmodSync } = await import('node:fs');
    const dir = tempDir();
    const creds = path.join(dir, 'creds.json');
    writeFileSync(creds, JSON.stringify({ password: 'device-secret-123' }), { mode: 0o644 });
    chmodSync(creds, 0o644);
    const env = { LAMP_DATA_DIR: dir, LAMP_MQTT_URL: 'mqtt://127.0.0.1:1', LAMP_MQTT_CREDENTIALS_FILE: creds };
    const bad = runCli(['doctor'], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/credentials\s+FAIL\s+.*chmod 600.*LAMP-1004/);
    expect(bad.stdout).not.toContain('device-secret-123');
    chmodSync(creds, 0o600);
    const good = runCli(['doctor'], env);
    expect(good.stdout).toMatch(/credentials\s+ok/);
    expect(good.code).toBe(0);
  });

  it('fails on invalid config', () => {
    const r = runCli(['doctor'], { LAMP_DATA_DIR: tempDir(), LAMP_HTTP_PORT: '-1' });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/config\s+FAIL\s+.*http\.port/);
  });
});

describe('lamp version', () => {
  it('prints the package version', () => {
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string };
    const r = runCli(['version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^lamp ${pkg.version.replace(/\./g, '\\.')}( \\([0-9a-f]+\\))?\\n$`));
  });
});

describe('npm start', () => {
  it('Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops the lamp and npm with exit 0', async () => {
    const { spawn } = await import('node:child_process');
    const dataDir = tempDir();
    const proc = spawn('npm', ['start'], {
      cwd: path.join(import.meta.dirname, '..'),
      env: { ...process.env, LAMP_DATA_DIR: dataDir, LAMP_HTTP_PORT: '0', LAMP_LOG_FORMAT: 'json' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const ready = new Promise<void>((resolve, reject) => {
      proc.stdout.on('data', (d: Buffer) => {
        out += String(d);
        if (out.includes('"msg":"lamp ready"')) resolve();
      });
      proc.on('exit', (code) => reject(new Error(`npm start exited early (${code}): ${out}`)));
    });
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    await ready;
    process.kill(-(proc.pid as number), 'SIGINT');
    expect(await exited).toBe(0);
    expect(out).toContain('"msg":"lamp stopped"');
    expect(existsSync(path.join(dataDir, 'lamp.db-wal'))).toBe(false);
  }, 120_000);
});

describe('lamp route --jsonl', () => {
  it('answers one JSON line per input line with intent, confidence, slots and latency; bad lines get an error', () => {
    const input = [
      { id: 'a', text: '我要背床前明月光那首', scene: 'chat' },
      { id: 'b', text: '帮我检查数学作业', scene: 'chat' },
      { id: 'c', text: '不背了', scene: 'recite' },
    ].map((l) => JSON.stringify(l)).join('\n') + '\n{oops\n' + JSON.stringify({ id: 'd', text: 'x', scene: 'garden' }) + '\nnull\n';
    const r = runCli(['route', '--jsonl'], {}, input);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatchObject({ id: 'a', intent: 'recite', slots: { material: '静夜思' } });
    expect(lines[1]).toMatchObject({ id: 'b', intent: 'homework', slots: { subject: '数学' } });
    expect(lines[2]).toMatchObject({ id: 'c', intent: 'exit_current', confidence: 'HIGH', slots: {} });
    expect(typeof lines[0]?.latency_us).toBe('number');
    expect(lines[3]).toEqual({ id: null, error: 'not a JSON object' });
    expect(lines[4]).toMatchObject({ id: 'd', error: expect.stringContaining('scene') });
    expect(lines[5]).toEqual({ id: null, error: 'not a JSON object' });
    expect(r.code).toBe(2);
  });
});

describe('lamp recite-check --jsonl', () => {
  it('checks one line per input with the contract shape; a bad line gets an error and the rest carry on', () => {
    const input = [
      JSON.stringify({ id: 1, expected: '春眠不觉晓，处处闻啼鸟。', recited: '春眠不觉晓处处温啼鸟' }),
      '{nope',
      JSON.stringify({ id: 3, expected: '，', recited: 'x' }),
      'null',
      JSON.stringify({ id: 4, expected: 'Row, row, row your boat', recited: 'row row row your boat' }),
    ].join('\n');
    const r = runCli(['recite-check', '--jsonl'], {}, input);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({
      id: 1,
      accuracy: 90,
      need_retry: false,
      errors: [{ type: 'mispronounced', sentence: 2, char: 3, expected: '闻', actual: '温', position: '第2句第3字' }],
      tolerated: [],
    });
    expect(lines[1]).toEqual({ id: null, error: 'not a JSON object' });
    expect(lines[2]).toMatchObject({ id: 3, error: expect.stringContaining('nothing to recite') });
    expect(lines[3]).toEqual({ id: null, error: 'not a JSON object' });
    expect(lines[4]).toMatchObject({ id: 4, accuracy: 100 });
    expect(r.code).toBe(2);
  });
});

describe('lamp grade-page --jsonl', () => {
  type Box = [number, number, number, number];
  interface Item { question: string; student_answer: string; correct_answer: string | null; verdict: string; confidence: number; bbox: Box; kind: string }
  const fixture = (name: string) => path.join('test', 'fixtures', 'homework', name);

  it('grades the photographed fixture pages against their truth: no right answer marked wrong, and bad images get an error while the rest are graded', () => {
    const dir = tempDir();
    const corrupt = path.join(dir, 'corrupt.jpg');
    writeFileSync(corrupt, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(5000, 7)]));
    const pages = ['easy-1', 'easy-2', 'medium-33', 'medium-34', 'hard-43', 'hard-44'];
    const r = runCli(['grade-page', '--jsonl', ...pages.map((p) => fixture(`${p}.jpg`)), fixture('blurred-7.jpg'), corrupt], { LAMP_DATA_DIR: dir });
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { image: string; items: Item[]; summary?: Record<string, unknown>; timings_ms?: Record<string, number>; error?: Record<string, unknown> });
    expect(out.map((o) => o.image)).toEqual([...pages.map((p) => fixture(`${p}.jpg`)), fixture('blurred-7.jpg'), corrupt]);
    expect(r.code).toBe(1);
    expect(out[6]?.error).toMatchObject({ issue: 'blurry' });
    expect(out[7]?.error).toHaveProperty('message');

    let right = 0;
    let decided = 0;
    for (const [i, page] of pages.entries()) {
      const got = out[i] as (typeof out)[number];
      expect(got.timings_ms).toEqual({ preprocess: expect.any(Number), ocr: expect.any(Number), grade: expect.any(Number) });
      expect(got.summary).toMatchObject({ total: got.items.length });
      const truth = JSON.parse(readFileSync(fixture(`${page}.json`), 'utf8')) as { items: { verdict: string; bbox: Box }[] };
      const matched = matchTruth(truth.items, got.items);
      for (const [k, t] of truth.items.entries()) {
        const best = matched[k];
        // The worst outcome for a child: a right answer marked wrong.
        if (t.verdict === 'correct') expect(best?.verdict, `${page}: ${JSON.stringify(best)}`).not.toBe('incorrect');
        if (!page.startsWith('hard')) {
          decided++;
          if (best?.verdict === t.verdict) right++;
        }
      }
    }
    // Easy and medium pages: 101 of 105 verdicts right when this was written.
    expect(right / decided).toBeGreaterThanOrEqual(0.93);
  });

  it("reads a remainder's digit after its dots on the answer's own line (6÷5=1……1 on easy-10105)", () => {
    const r = runCli(['grade-page', '--jsonl', fixture('easy-10105.jpg')], { LAMP_DATA_DIR: tempDir() });
    const [page] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { items: Item[] });
    expect(page?.items.find((i) => i.question === '6÷5=')).toMatchObject({ student_answer: '1……1', verdict: 'correct' });
  });

  it('reads a remainder whose dots blur made one point and whose digit the recogniser dropped; the guessed dots condemn only an answer wrong however they are read', () => {
    const r = runCli(['grade-page', '--jsonl', fixture('hard-11312.jpg'), fixture('hard-11634.jpg')], { LAMP_DATA_DIR: tempDir() });
    const [right, wrong] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { items: Item[] });
    // 31÷5=6……1 read as "31+5=6.": right, from a shaky reading.
    expect(right?.items.find((i) => i.question === '31÷5=')).toMatchObject({ student_answer: '6……1', verdict: 'correct', reason: 'low_char_confidence' });
    // 9÷2=4……2 read as "9÷2=4.": wrong as 4……2, 4.2 and 42.
    expect(wrong?.items.find((i) => i.question === '9÷2=')).toMatchObject({ student_answer: '4……2', verdict: 'incorrect', reason: 'remainder_too_large' });
  });

  it('a lone handwritten digit the recogniser reads only beside its problem (2×2=4, 16÷4=4, 45÷5=9 on hard-11867)', () => {
    const r = runCli(['grade-page', '--jsonl', fixture('hard-11867.jpg')], { LAMP_DATA_DIR: tempDir() });
    const [page] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { items: Item[] });
    for (const [question, answer] of [['2×2=', '4'], ['16÷4=', '4'], ['45÷5=', '9']]) {
      expect(page?.items.find((i) => i.question === question)).toMatchObject({ student_answer: answer, verdict: 'correct' });
    }
  });

  it('a ÷ read as + and seen as ÷ in the ink: wrong when it is wrong both ways (36÷4=32 on hard-11640; 32 is right only as 36-4, and a + is never a misread -)', () => {
    const r = runCli(['grade-page', '--jsonl', fixture('hard-11640.jpg')], { LAMP_DATA_DIR: tempDir() });
    const [page] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { items: Item[] });
    expect(page?.items.find((i) => i.question === '36÷4=')).toMatchObject({ student_answer: '32', verdict: 'incorrect' });
  });

  it('right answers misread as wrong are not marked wrong: 8÷2=4 read as =1 at 0.96 (hard-11945), ()+15=82 run into its neighbour\'s digits (hard-12429)', () => {
    const r = runCli(['grade-page', '--jsonl', fixture('hard-11945.jpg'), fixture('hard-12429.jpg')], { LAMP_DATA_DIR: tempDir() });
    const [misread, runOn] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { items: Item[] });
    // Read otherwise from a wider crop: uncertain.
    expect(misread?.items.find((i) => i.question === '8÷2=')).toMatchObject({ student_answer: '1', verdict: 'uncertain' });
    // Graded up to the wide gap after its "82": right.
    expect(runOn?.items.find((i) => i.question === '()+15=82')).toMatchObject({ student_answer: '67', verdict: 'correct' });
    // Wrong answers read surely are still marked wrong on the same pages.
    for (const page of [misread, runOn]) expect(page?.items.filter((i) => i.verdict === 'incorrect').length).toBeGreaterThan(3);
  });

  it('what stands beside a problem on its row: a blank beside the next comparison, bare paper after a quotient, a blank\'s "(" the detector left out, a remainder read as one more dot (easy-12459, easy-12454, easy-12474, medium-12441, medium-12472)', () => {
    const pages = ['easy-12459', 'easy-12454', 'easy-12474', 'medium-12441', 'medium-12472'];
    const r = runCli(['grade-page', '--jsonl', ...pages.map((p) => fixture(`${p}.jpg`))], { LAMP_DATA_DIR: tempDir() });
    const [beside, bare, blank, written, dots] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { items: Item[] });
    // "(38+19)+16=" left blank, and "86○68" close beside it: two problems, each with its own mark.
    expect(beside?.items.find((i) => i.question === '(38+19)+16=')).toMatchObject({ student_answer: '', verdict: 'incorrect' });
    expect(beside?.items.find((i) => i.question === '86○68')).toMatchObject({ student_answer: '>', verdict: 'correct' });
    // "15+2=7" with nothing after the 7 is no ÷ that lost its remainder: wrong.
    expect(bare?.items.find((i) => i.question === '15+2=')).toMatchObject({ student_answer: '7', verdict: 'incorrect' });
    // Read as ")+11=93" and ")+15=17": the paper left of the ")" holds a bare blank, and the child's 1.
    expect(blank?.items.find((i) => i.question === '()+11=93')).toMatchObject({ student_answer: '', verdict: 'incorrect', reason: 'blank' });
    expect(written?.items.find((i) => i.question === '()+15=17')).toMatchObject({ student_answer: '1', verdict: 'incorrect' });
    // "11÷3=3....." with the 2 read as the last dot: the digit after the dots is read on its own.
    expect(dots?.items.find((i) => i.question === '11÷3=')).toMatchObject({ student_answer: '3……2', verdict: 'correct' });
  });

  it('blanks read shakily or without their bracket, a remainder\'s lone digit, a sign put back beside a bracket (hard-12527, hard-12566, hard-12587, hard-12533)', () => {
    const pages = ['hard-12527', 'hard-12566', 'hard-12587', 'hard-12533'];
    const r = runCli(['grade-page', '--jsonl', ...pages.map((p) => fixture(`${p}.jpg`))], { LAMP_DATA_DIR: tempDir() });
    const [bracket, shaky, remainder, sign] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { items: Item[] });
    // Read as "+32=83": the paper left of the "+" holds "(", bare paper and ")".
    expect(bracket?.items.find((i) => i.question === '()+32=83')).toMatchObject({ student_answer: '', verdict: 'incorrect', reason: 'blank' });
    // Its "=" read at 0.47, and bare paper after it.
    expect(shaky?.items.find((i) => i.question === '20-5=')).toMatchObject({ student_answer: '', verdict: 'incorrect', reason: 'blank' });
    // The 1 after the dots read as nothing cut out alone, and read with its problem.
    expect(remainder?.items.find((i) => i.question === '16÷5=')).toMatchObject({ student_answer: '3……1', verdict: 'correct' });
    // "(95}-31=65", its "-" put back from the ink: 95 is wrong whatever the sign.
    expect(sign?.items.find((i) => i.question === '()-31=65')).toMatchObject({ student_answer: '95', verdict: 'incorrect' });
  });
});
