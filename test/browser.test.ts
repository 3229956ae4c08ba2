import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../runtime/paths.js';
import { tempDir } from './helpers/app.js';
import { launchChromium } from './helpers/browser.js';
import { type LampProcess, startLampProcess } from './helpers/lamp-process.js';


let lamp: LampProcess;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  lamp = await startLampProcess({ LAMP_DATA_DIR: tempDir() });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  lamp?.proc.kill('SIGTERM');
  await lamp?.exited;
});

describe('simulator page in a real browser', () => {
  it('an utterance typed on the page gets a reply and the projector shows it', async () => {
    const page = await browser.newPage();
    await page.goto(lamp.url + '/');
    await page.locator('#status[data-state="open"]').waitFor();
    await page.fill('#utterance', '你好，小灯');
    await page.click('#say button[type=submit]');
    const reply = page.locator('#log li.lamp').first();
    await reply.waitFor();
    const text = await reply.textContent();
    expect(text).toMatch(/[\u4e00-\u9fff]/);
    await expect.poll(() => page.locator('#projector').textContent()).toContain(text ?? '');
    expect(await page.locator('#log li.child').first().textContent()).toBe('你好，小灯');
    // the turn ran through the runtime's pipeline: it has a trace in the log
    await lamp.waitForLine((l) => l.msg === 'turn done' && typeof l.trace_id === 'string');
    // and the child's words are not in the info-level log
    expect(lamp.lines.some((l) => JSON.stringify(l).includes('你好，小灯'))).toBe(false);
  });

  it('carries a multi-turn conversation: chat → recite with the material → exit → chat', async () => {
    const page = await browser.newPage();
    await page.goto(lamp.url + '/');
    await page.locator('#status[data-state="open"]').waitFor();
    const say = async (text: string, scene: string): Promise<void> => {
      const before = await page.locator('#log li.lamp').count();
      await page.fill('#utterance', text);
      await page.click('#say button[type=submit]');
      await expect.poll(() => page.locator('#log li.lamp').count()).toBe(before + 1);
      await expect.poll(() => page.locator('#scene').getAttribute('data-scene')).toBe(scene);
    };
    await say('我想背静夜思', 'recite');
    await expect.poll(() => page.locator('#projector .title').textContent()).toBe('《静夜思》');
    expect(await page.locator('#projector').textContent()).toContain('床前明月光');
    await say('不背了', 'chat');
    await say('你好呀', 'chat');
    expect(await page.locator('#scene').getAttribute('data-phase')).toBe('idle');
  });

  it('recitation: name a poem, recite with a mistake, see it marked, retry, pass, and see the next review', async () => {
    const page = await browser.newPage();
    await page.goto(lamp.url + '/');
    await page.locator('#status[data-state="open"]').waitFor();
    const say = async (text: string): Promise<string> => {
      const before = await page.locator('#log li.lamp').count();
      await page.fill('#utterance', text);
      await page.click('#say button[type=submit]');
      await expect.poll(() => page.locator('#log li.lamp').count()).toBe(before + 1);
      return (await page.locator('#log li.lamp').last().textContent()) ?? '';
    };
    await say('我要背登鹳雀楼');
    const first = await say('白日依山尽黄河入海流更上一层楼');
    expect(first).toContain('再试一次');
    await expect.poll(() => page.locator('#projector .mark.omission').count()).toBeGreaterThan(0);
    const second = await say('白日依山尽黄河入海流欲穷千里目更上一层楼');
    expect(second).toContain('一个字都没错');
    expect(second).toContain('明天我们再复习一次');
    await expect.poll(() => page.locator('#projector .subtitle').textContent()).toContain('下次复习');
  });

  it('a homework photo uploaded on the page gets the spoken summary and a mark on every problem', async () => {
    const file = path.join(projectRoot(), 'test', 'fixtures', 'homework', 'easy-1.jpg');
    const truth = JSON.parse(readFileSync(file.replace(/\.jpg$/, '.json'), 'utf8')) as { items: unknown[] };
    const page = await browser.newPage();
    await page.goto(lamp.url + '/');
    await page.locator('#status[data-state="open"]').waitFor();
    await page.setInputFiles('#image', file);
    await page.click('#camera button[type=submit]');
    await expect.poll(() => page.locator('#log li.lamp').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await page.locator('#log li.lamp').last().textContent()).toMatch(/^\d+ 道题/);
    await expect.poll(() => page.locator('[data-testid="hw-item"]').count(), { timeout: 5000 }).toBe(truth.items.length);
    const lines = await page.locator('[data-testid="hw-item"]').allTextContents();
    expect(lines.filter((t) => !/[✓✗?]$/.test(t))).toEqual([]);
  });
});
